import { useEffect, useState, type FormEvent } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  FileButton,
  Group,
  List,
  Paper,
  Progress,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import type { Contact, ContactsResponse, GroupsResponse } from '@switchboard/contracts';
import { api, errorText } from '../api';
import { download, parseCsv, toCsv } from '../csv';
import { Pager } from '../Pager';
import { ListTable } from '../ListTable';
import { ConfirmButton } from '../ConfirmButton';
import { ErrorAlert } from '../ErrorAlert';
import { ContactForm } from '../ContactForm';

const PER_PAGE = 25;
const KNOWN_COLUMNS = ['name', 'phone', 'email', 'groups'];

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

interface ImportState {
  total: number;
  done: number;
  errors: { row: number; message: string }[];
  running: boolean;
}

/**
 * A CSV of name, phone and optionally email, groups (separated by ;) and any other column as a
 * custom field: each row becomes a makeContact call, one at a time, with the progress and each
 * refused row's reason shown.
 */
function CsvImport({ onDone }: { onDone: () => void }) {
  const [state, setState] = useState<ImportState | null>(null);
  const run = async (file: File | null) => {
    if (!file) return;
    const [header, ...rows] = parseCsv(await file.text());
    const columns = (header ?? []).map((cell) => cell.trim().toLowerCase());
    if (!columns.includes('name') || !columns.includes('phone')) {
      setState({
        total: 0,
        done: 0,
        running: false,
        errors: [
          { row: 1, message: 'The first row must name the columns, name and phone among them' },
        ],
      });
      return;
    }
    const progress: ImportState = { total: rows.length, done: 0, errors: [], running: true };
    setState({ ...progress });
    for (const [index, cells] of rows.entries()) {
      const value = (column: string) => cells[columns.indexOf(column)]?.trim() ?? '';
      const custom: Record<string, string> = {};
      columns.forEach((column, at) => {
        if (!KNOWN_COLUMNS.includes(column) && cells[at]?.trim())
          custom[column] = cells[at]!.trim();
      });
      try {
        await api.op.post('makeContact', {
          name: value('name'),
          phone: value('phone').replace(/[^\d]/g, ''),
          ...(value('email') ? { email: value('email') } : {}),
          ...(value('groups')
            ? {
                groups: value('groups')
                  .split(';')
                  .map((g) => g.trim()),
              }
            : {}),
          ...(Object.keys(custom).length ? { custom } : {}),
        });
      } catch (error) {
        progress.errors.push({ row: index + 2, message: errorText(error) });
      }
      progress.done++;
      setState({ ...progress, errors: [...progress.errors] });
    }
    setState({ ...progress, running: false, errors: [...progress.errors] });
    onDone();
  };
  const percent = state && state.total ? Math.round((state.done / state.total) * 100) : 0;
  return (
    <Stack gap="xs">
      <Group>
        <FileButton onChange={(file) => void run(file)} accept=".csv,text/csv">
          {(props) => (
            <Button {...props} variant="default" disabled={state?.running}>
              Import CSV
            </Button>
          )}
        </FileButton>
        <Text size="xs" c="dimmed">
          Columns: name, phone, email, groups (separated by ;), and any others as custom fields.
        </Text>
      </Group>
      {state && state.total > 0 && (
        <Stack gap={4}>
          <Progress value={percent} aria-label="Import progress" />
          <Text size="sm" role="status" data-testid="import-status">
            {state.running ? 'Importing' : 'Imported'} {state.done} of {state.total} rows
            {state.errors.length > 0 && `, ${state.errors.length} refused`}
          </Text>
        </Stack>
      )}
      {state && state.errors.length > 0 && (
        <Alert color="red" title="Rows not imported" role="alert">
          <List size="sm">
            {state.errors.map((error) => (
              <List.Item key={error.row}>
                Row {error.row}: {error.message}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
    </Stack>
  );
}

async function exportContacts(groupId: string | null, search: string): Promise<void> {
  const all: Contact[] = [];
  for (let page: number | null = 1; page !== null;) {
    const answer: ContactsResponse = await api.op.get<ContactsResponse>('getContacts', {
      page,
      per_page: 500,
      group_id: groupId ?? undefined,
      search: search || undefined,
    });
    all.push(...answer.contacts);
    page = answer.meta.next_page;
  }
  const customKeys = [...new Set(all.flatMap((contact) => Object.keys(contact.custom)))].sort();
  const rows = [
    ['name', 'phone', 'email', 'subscription', 'groups', ...customKeys],
    ...all.map((contact) => [
      contact.name,
      contact.phone,
      contact.email ?? '',
      contact.subscription,
      contact.groups.map((group) => group.name).join(';'),
      ...customKeys.map((key) => contact.custom[key] ?? ''),
    ]),
  ];
  download('contacts.csv', toCsv(rows));
}

type GroupItem = GroupsResponse['groups'][number];

/** One group: picking it filters the list; it can be renamed in place or deleted. */
function GroupRow({
  group,
  onPick,
  onChanged,
  onDeleted,
}: {
  group: GroupItem;
  onPick: () => void;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(group.name);
  const rename = useMutation({
    mutationFn: () => api.op.put('updateGroup', { id: group.id, name }),
    onSuccess: () => {
      setRenaming(false);
      onChanged();
    },
  });
  const remove = useMutation({
    mutationFn: () => api.op.delete('deleteGroup', { id: group.id }),
    onSuccess: () => {
      onDeleted();
      onChanged();
    },
  });
  if (renaming) {
    return (
      <form
        onSubmit={(event) => {
          event.preventDefault();
          rename.mutate();
        }}
      >
        <Group gap={4} align="flex-start" wrap="nowrap">
          <TextInput
            size="xs"
            aria-label={`New name for ${group.name}`}
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={rename.error ? errorText(rename.error).replace(/^name: /, '') : undefined}
            style={{ flex: 1 }}
            ref={(input) => input?.focus()}
          />
          <Button size="xs" type="submit" loading={rename.isPending}>
            Save
          </Button>
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              setRenaming(false);
              setName(group.name);
              rename.reset();
            }}
          >
            Cancel
          </Button>
        </Group>
      </form>
    );
  }
  return (
    <Stack gap={2}>
      <Group gap={4} wrap="nowrap" justify="space-between">
        <Button
          variant="subtle"
          size="xs"
          onClick={onPick}
          style={{ flex: 1 }}
          justify="flex-start"
        >
          {group.name}
        </Button>
        <Button
          size="compact-xs"
          variant="default"
          aria-label={`Rename ${group.name}`}
          onClick={() => setRenaming(true)}
        >
          Rename
        </Button>
        <ConfirmButton
          label={`Delete ${group.name}`}
          size="compact-xs"
          loading={remove.isPending}
          question={`Delete the group “${group.name}”? Its contacts stay.`}
          onConfirm={() => remove.mutate()}
        >
          Delete
        </ConfirmButton>
      </Group>
      <ErrorAlert error={remove.error} />
    </Stack>
  );
}

function Groups({
  onPick,
  onDeleted,
}: {
  onPick: (id: string) => void;
  onDeleted: (id: string) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const groups = useQuery({
    queryKey: ['groups'],
    queryFn: () => api.op.get<GroupsResponse>('getGroups', { per_page: 500 }),
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['groups'] });
    // The list shows each contact's group names.
    void queryClient.invalidateQueries({ queryKey: ['contacts'] });
  };
  const add = useMutation({
    mutationFn: () => api.op.post('addGroup', { name }),
    onSuccess: () => setName(''),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['groups'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <Paper withBorder p="sm" w={260} component="section" aria-labelledby="groups">
      <Stack gap="xs">
        <Title order={2} size="h5" id="groups">
          Groups
        </Title>
        <ErrorAlert error={groups.error} />
        {groups.data?.groups.length === 0 && (
          <Text size="sm" c="dimmed">
            No groups yet.
          </Text>
        )}
        {groups.data?.groups.map((group) => (
          <GroupRow
            key={group.id}
            group={group}
            onPick={() => onPick(String(group.id))}
            onChanged={refresh}
            onDeleted={() => onDeleted(String(group.id))}
          />
        ))}
        <form onSubmit={submit}>
          <Group gap="xs" align="flex-end">
            <TextInput
              size="xs"
              label="New group"
              required
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              w={150}
            />
            <Button size="xs" type="submit" loading={add.isPending}>
              Add
            </Button>
          </Group>
        </form>
        <ErrorAlert error={add.error} />
      </Stack>
    </Paper>
  );
}

export function ContactsPage() {
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get('search') ?? '');
  const settledSearch = useDebounced(search.trim(), 300);
  const page = Number(params.get('page')) || 1;
  const groupId = params.get('group');
  // Kept in the address, so a reload or a shared link shows the same list.
  const setParam = (key: string, value: string | null) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    if (key !== 'page') next.delete('page');
    setParams(next, { replace: true });
  };
  useEffect(() => {
    if ((params.get('search') ?? '') !== settledSearch) setParam('search', settledSearch || null);
  }, [settledSearch]);
  const groups = useQuery({
    queryKey: ['groups'],
    queryFn: () => api.op.get<GroupsResponse>('getGroups', { per_page: 500 }),
  });
  const exporter = useMutation({ mutationFn: () => exportContacts(groupId, settledSearch) });
  // An unsubscribed contact is left out of campaigns.
  const subscription = useMutation({
    mutationFn: (contact: Contact) =>
      api.op.post('updateContact', {
        id: contact.id,
        subscription: contact.subscription === 'subscribed' ? 'unsubscribed' : 'subscribed',
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['contacts'] }),
  });
  // The contact being edited, or 'new' while one is added.
  const [editing, setEditing] = useState<Contact | 'new' | null>(null);
  const contacts = useQuery({
    queryKey: ['contacts', settledSearch, groupId, page],
    queryFn: () =>
      api.op.get<ContactsResponse>('getContacts', {
        page,
        per_page: PER_PAGE,
        search: settledSearch || undefined,
        group_id: groupId ?? undefined,
      }),
    placeholderData: (previous) => previous,
  });
  return (
    <Stack>
      <Title order={1}>Contacts</Title>
      <Group align="flex-start" wrap="nowrap">
        <Stack style={{ flex: 1 }}>
          <Group align="flex-end">
            <TextInput
              label="Search"
              placeholder="Name or phone"
              value={search}
              onChange={(event) => setSearch(event.currentTarget.value)}
            />
            <Select
              label="Group"
              placeholder="All contacts"
              clearable
              data={(groups.data?.groups ?? []).map((group) => ({
                value: String(group.id),
                label: group.name,
              }))}
              value={groupId}
              onChange={(value) => setParam('group', value)}
            />
            <Button
              variant="default"
              loading={exporter.isPending}
              onClick={() => exporter.mutate()}
            >
              Export CSV
            </Button>
            <Button onClick={() => setEditing('new')} disabled={editing === 'new'}>
              New contact
            </Button>
          </Group>
          {editing && (
            <ContactForm
              key={editing === 'new' ? 'new' : editing.id}
              contact={editing === 'new' ? undefined : editing}
              groups={groups.data?.groups ?? []}
              onDone={(saved) => {
                setEditing(null);
                if (saved) {
                  void queryClient.invalidateQueries({ queryKey: ['contacts'] });
                  void queryClient.invalidateQueries({ queryKey: ['groups'] });
                }
              }}
            />
          )}
          <CsvImport
            onDone={() => {
              // An import may have made groups as well as contacts.
              void queryClient.invalidateQueries({ queryKey: ['contacts'] });
              void queryClient.invalidateQueries({ queryKey: ['groups'] });
            }}
          />
          <ErrorAlert error={contacts.error} />
          {contacts.data && contacts.data.contacts.length === 0 && (
            <Text c="dimmed">
              {settledSearch || groupId
                ? 'No contact matches.'
                : 'No contacts yet: add one, import a CSV, or they appear as customers write.'}
            </Text>
          )}
          {contacts.data && contacts.data.contacts.length > 0 && (
            <>
              <Text size="sm" c="dimmed">
                {contacts.data.meta.total} {contacts.data.meta.total === 1 ? 'contact' : 'contacts'}
              </Text>
              <Table.ScrollContainer minWidth={700}>
                <ListTable
                  label="Contacts"
                  striped
                  headings={['Name', 'Phone', 'Email', 'Groups', 'Custom fields', 'Subscription']}
                >
                  {contacts.data.contacts.map((contact) => (
                    <Table.Tr key={contact.id} data-testid="contact-row">
                      <Table.Td>
                        {/* The name opens the contact's form, as a list of people usually does. */}
                        <Anchor
                          component="button"
                          type="button"
                          fz="sm"
                          ta="left"
                          aria-label={`Edit ${contact.name}`}
                          onClick={() => setEditing(contact)}
                        >
                          {contact.name}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>+{contact.phone}</Table.Td>
                      <Table.Td>{contact.email ?? '—'}</Table.Td>
                      <Table.Td>
                        {contact.groups.map((group) => group.name).join(', ') || '—'}
                      </Table.Td>
                      <Table.Td>
                        <Text size="xs">
                          {Object.entries(contact.custom)
                            .map(([key, value]) => `${key}: ${value}`)
                            .join(', ') || '—'}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Group gap={6} wrap="nowrap">
                          <Badge
                            color={contact.subscription === 'subscribed' ? 'teal.9' : 'gray.7'}
                            style={{ flexShrink: 0 }}
                          >
                            {contact.subscription}
                          </Badge>
                          <Button
                            size="compact-xs"
                            variant="default"
                            style={{ flexShrink: 0 }}
                            aria-label={`${contact.subscription === 'subscribed' ? 'Unsubscribe' : 'Subscribe'} ${contact.name}`}
                            onClick={() => subscription.mutate(contact)}
                          >
                            {contact.subscription === 'subscribed' ? 'Unsubscribe' : 'Subscribe'}
                          </Button>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </ListTable>
              </Table.ScrollContainer>
              <Pager
                page={page}
                hasNext={contacts.data.meta.next_page !== null}
                onPage={(next) => setParam('page', String(next))}
              />
            </>
          )}
          <ErrorAlert error={subscription.error} />
          <ErrorAlert error={exporter.error} title="The export failed" />
        </Stack>
        <Groups
          onPick={(id) => setParam('group', id)}
          onDeleted={(id) => {
            if (groupId === id) setParam('group', null);
          }}
        />
      </Group>
    </Stack>
  );
}
