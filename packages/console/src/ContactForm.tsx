import { useEffect, useRef, useState } from 'react';
import {
  ActionIcon,
  Alert,
  Button,
  Group,
  MultiSelect,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import type { Contact, Group as ContactGroup } from '@switchboard/contracts';
import { api } from './api';
import { fieldErrors } from './field-errors';
import { Section } from './Section';

interface CustomRow {
  /** Stable across edits of the key, for React. */
  row: number;
  key: string;
  value: string;
}

const FIELDS = ['name', 'phone', 'email', 'custom', 'groups'] as const;

let nextRow = 0;
const rowsOf = (custom: Record<string, string>): CustomRow[] =>
  Object.entries(custom).map(([key, value]) => ({ row: nextRow++, key, value }));

/** What the custom fields become: changed or new keys set, keys no longer listed removed (null). */
function customChanges(
  before: Record<string, string>,
  rows: CustomRow[],
): Record<string, string | null> {
  const after = new Map(
    rows.filter((row) => row.key.trim()).map((row) => [row.key.trim(), row.value]),
  );
  const changes: Record<string, string | null> = {};
  for (const key of Object.keys(before)) if (!after.has(key)) changes[key] = null;
  for (const [key, value] of after) if (before[key] !== value) changes[key] = value;
  return changes;
}

/**
 * One contact's fields, to add a contact or edit one. Editing writes name, phone, email and
 * subscription by id (`updateContact`); custom fields and new groups go through `makeContact` on
 * the contact's phone, which merges custom fields (a removed key is sent as null) and adds groups.
 * A refusal is shown under the field it names.
 */
export function ContactForm({
  contact,
  groups,
  onDone,
}: {
  /** The contact to edit; a new contact without it. */
  contact?: Contact;
  groups: ContactGroup[];
  onDone: (saved: Contact | null) => void;
}) {
  const [name, setName] = useState(contact?.name ?? '');
  const [phone, setPhone] = useState(contact?.phone ?? '');
  const [email, setEmail] = useState(contact?.email ?? '');
  const [subscribed, setSubscribed] = useState(contact?.subscription !== 'unsubscribed');
  const [rows, setRows] = useState<CustomRow[]>(() => rowsOf(contact?.custom ?? {}));
  const [addGroups, setAddGroups] = useState<string[]>([]);
  const [unnamed, setUnnamed] = useState(false);
  const nameInput = useRef<HTMLInputElement>(null);
  // Opened from a button: the keyboard goes on in the form.
  useEffect(() => nameInput.current?.focus(), []);
  const currentGroups = new Set(contact?.groups.map((group) => String(group.id)) ?? []);

  const save = useMutation({
    mutationFn: async (): Promise<Contact> => {
      const digits = phone.replace(/[^\d]/g, '');
      let saved = contact;
      if (contact) {
        const answer = await api.op.post<{ contact: Contact }>('updateContact', {
          id: contact.id,
          name,
          phone: digits,
          email,
          subscription: subscribed ? 'subscribed' : 'unsubscribed',
        });
        saved = answer.contact;
      }
      const custom = customChanges(contact?.custom ?? {}, rows);
      if (!contact || Object.keys(custom).length > 0 || addGroups.length > 0) {
        const answer = await api.op.post<{ contact: Contact }>('makeContact', {
          name,
          phone: digits,
          ...(contact ? {} : email ? { email } : {}),
          ...(Object.keys(custom).length ? { custom } : {}),
          ...(addGroups.length ? { groups: addGroups.map(Number) } : {}),
        });
        saved = answer.contact;
      }
      return saved!;
    },
    onSuccess: (saved) => onDone(saved),
  });
  const errors = fieldErrors(save.error, FIELDS);
  const title = contact ? `Edit ${contact.name}` : 'New contact';

  const submit = () => {
    const keyless = rows.some((row) => !row.key.trim() && row.value.trim());
    setUnnamed(keyless);
    if (!keyless) save.mutate();
  };
  const setRow = (row: number, change: Partial<CustomRow>) =>
    setRows((current) => current.map((each) => (each.row === row ? { ...each, ...change } : each)));

  return (
    <Section id="contact-form-title" title={title} gap="sm" onSubmit={submit}>
      <Group align="flex-start" grow>
        <TextInput
          label="Name"
          required
          ref={nameInput}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={errors.byField.name}
        />
        <TextInput
          label="Phone"
          required
          description="With the country code"
          value={phone}
          onChange={(event) => setPhone(event.currentTarget.value)}
          error={errors.byField.phone}
        />
        <TextInput
          label="Email"
          type="email"
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          error={errors.byField.email}
        />
      </Group>
      {contact && (
        <Switch
          label="Subscribed to campaigns"
          checked={subscribed}
          onChange={(event) => setSubscribed(event.currentTarget.checked)}
        />
      )}
      <Stack gap={6} role="group" aria-labelledby="custom-fields-label">
        <Text size="sm" fw={500} id="custom-fields-label">
          Custom fields
        </Text>
        {rows.length === 0 && (
          <Text size="xs" c="dimmed">
            None yet.
          </Text>
        )}
        {rows.map((row, index) => (
          <Group key={row.row} gap="xs" align="flex-start">
            <TextInput
              size="xs"
              aria-label={`Custom field ${index + 1} name`}
              placeholder="Field"
              value={row.key}
              onChange={(event) => setRow(row.row, { key: event.currentTarget.value })}
              error={unnamed && !row.key.trim() && row.value.trim() ? 'Name this field' : undefined}
            />
            <TextInput
              size="xs"
              aria-label={`Custom field ${row.key || index + 1} value`}
              placeholder="Value"
              value={row.value}
              onChange={(event) => setRow(row.row, { value: event.currentTarget.value })}
              style={{ flex: 1 }}
            />
            <ActionIcon
              variant="default"
              size="input-xs"
              aria-label={`Remove custom field ${row.key || index + 1}`}
              onClick={() => setRows((current) => current.filter((each) => each.row !== row.row))}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        {errors.byField.custom && (
          <Text size="xs" c="red.8" role="alert">
            {errors.byField.custom}
          </Text>
        )}
        <Group>
          <Button
            size="compact-xs"
            variant="default"
            onClick={() =>
              setRows((current) => [...current, { row: nextRow++, key: '', value: '' }])
            }
          >
            Add field
          </Button>
        </Group>
      </Stack>
      <MultiSelect
        label={contact ? 'Add to groups' : 'Groups'}
        description={
          contact && contact.groups.length > 0
            ? `In ${contact.groups.map((group) => group.name).join(', ')}`
            : undefined
        }
        placeholder={groups.length ? 'Pick groups' : 'No groups yet'}
        data={groups
          .filter((group) => !currentGroups.has(String(group.id)))
          .map((group) => ({ value: String(group.id), label: group.name }))}
        value={addGroups}
        onChange={setAddGroups}
        error={errors.byField.groups}
        searchable
        clearable
      />
      {errors.other && (
        <Alert color="red" role="alert" title="Not saved">
          {errors.other}
        </Alert>
      )}
      <Group>
        <Button type="submit" loading={save.isPending}>
          {contact ? 'Save contact' : 'Add contact'}
        </Button>
        <Button variant="default" onClick={() => onDone(null)}>
          Cancel
        </Button>
      </Group>
    </Section>
  );
}
