import { useState } from 'react';
import {
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  EVENT_NAMES,
  isReservedEventName,
  type DeliveryLog,
  type DeliveryLogListResponse,
  type EventName,
  type Webhook,
  type WebhookListResponse,
  type WebhookResponse,
} from '@switchboard/contracts';
import { api } from '../api';
import { formatTime } from '../format';
import { Pager } from '../Pager';
import { ListTable } from '../ListTable';
import { ConfirmButton } from '../ConfirmButton';
import { ErrorAlert } from '../ErrorAlert';
import { Section } from '../Section';
import { ShownOnce } from '../ShownOnce';

const WEBHOOKS = ['webhooks'];

/** The secret in full, shown once after creation or rotation; the list shows it masked after. */
function SecretOnce({ webhook, onDone }: { webhook: Webhook; onDone: () => void }) {
  return (
    <ShownOnce
      title={`Signing secret of “${webhook.name}”`}
      note="Copy it now: it is shown this once. Afterwards it appears masked."
      value={webhook.secret}
      copyLabel="Copy secret"
      testId="new-secret"
      onDone={onDone}
    />
  );
}

function CreateWebhookForm({ onCreated }: { onCreated: (webhook: Webhook) => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['message_received']);
  const create = useMutation({
    mutationFn: () =>
      api.post<WebhookResponse>('/developer/webhooks', {
        name,
        url,
        events: events as EventName[],
      }),
    onSuccess: (answer) => {
      setName('');
      setUrl('');
      onCreated(answer.webhook);
    },
  });
  return (
    <Section id="create-webhook" title="Create a webhook" onSubmit={() => create.mutate()}>
      <Group grow align="flex-start">
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
        />
        <TextInput
          label="URL"
          required
          placeholder="https://example.com/hooks/switchboard"
          value={url}
          onChange={(event) => setUrl(event.currentTarget.value)}
        />
      </Group>
      <Checkbox.Group
        label="Events"
        description="Reserved events can be chosen now; they are not sent yet."
        value={events}
        onChange={setEvents}
      >
        <SimpleGrid cols={{ base: 1, sm: 3 }} mt="xs">
          {EVENT_NAMES.map((eventName) => (
            <Checkbox
              key={eventName}
              value={eventName}
              label={
                <Group gap={6} component="span">
                  <span>{eventName}</span>
                  {isReservedEventName(eventName) && (
                    <Badge size="xs" color="gray.7" component="span">
                      reserved
                    </Badge>
                  )}
                </Group>
              }
            />
          ))}
        </SimpleGrid>
      </Checkbox.Group>
      <ErrorAlert error={create.error} title="The webhook was not created" />
      <Group>
        <Button type="submit" loading={create.isPending} disabled={events.length === 0}>
          Create webhook
        </Button>
      </Group>
    </Section>
  );
}

const STATE_LABELS: Record<DeliveryLog['state'], { label: string; color: string }> = {
  succeeded: { label: 'delivered', color: 'teal.9' },
  retrying: { label: 'retrying', color: 'yellow.4' },
  failed: { label: 'failed', color: 'red.9' },
};

/**
 * One row per delivery: its latest attempt, so a failed attempt's row turns from "retrying" to
 * "delivered" when the retry gets through; the earlier attempts are listed under it.
 */
function groupByDelivery(logs: DeliveryLog[]): DeliveryLog[][] {
  const byDelivery = new Map<string, DeliveryLog[]>();
  for (const log of logs) {
    const attempts = byDelivery.get(log.delivery_id) ?? [];
    attempts.push(log);
    byDelivery.set(log.delivery_id, attempts);
  }
  return [...byDelivery.values()];
}

function DeliveryLogs({ webhook }: { webhook: Webhook }) {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  // Until the console's event stream exists the log is read again every two seconds.
  const logs = useQuery({
    queryKey: ['webhook-logs', webhook.id, page],
    queryFn: () =>
      api.get<DeliveryLogListResponse>(`/developer/webhooks/${webhook.id}/logs`, {
        page,
        per_page: 50,
      }),
    refetchInterval: 2000,
  });
  const redeliver = useMutation({
    mutationFn: (log: DeliveryLog) =>
      api.post(`/developer/webhooks/${webhook.id}/logs/${log.id}/redeliver`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['webhook-logs', webhook.id] }),
  });
  if (logs.isPending) return <Text size="sm">Loading the delivery log…</Text>;
  if (logs.isError) return <ErrorAlert error={logs.error} />;
  const deliveries = groupByDelivery(logs.data.logs);
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        Delivery log of “{webhook.name}”
      </Title>
      <ErrorAlert error={redeliver.error} />
      {deliveries.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing delivered yet. Send a test event to see one here.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={800}>
          <Table striped withTableBorder aria-label={`Delivery log of ${webhook.name}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Response body</Table.Th>
                <Table.Th>Error</Table.Th>
                <Table.Th>Attempt</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>
                  <span className="visually-hidden">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {deliveries.map((attempts) => {
                const [latest, ...earlier] = attempts as [DeliveryLog, ...DeliveryLog[]];
                const state = STATE_LABELS[latest.state];
                return (
                  <Table.Tr key={latest.delivery_id} data-testid="delivery-row">
                    <Table.Td>{formatTime(latest.created_at)}</Table.Td>
                    <Table.Td>{latest.event}</Table.Td>
                    <Table.Td>{latest.response_status ?? '—'}</Table.Td>
                    <Table.Td>
                      <Text size="xs" ff="monospace" lineClamp={2} maw={220}>
                        {latest.response_body ?? '—'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">{latest.error ?? '—'}</Text>
                      {earlier.map((attempt) => (
                        <Text size="xs" c="dimmed" key={attempt.id}>
                          {attempt.attempt}: {attempt.response_status ?? attempt.error}
                        </Text>
                      ))}
                    </Table.Td>
                    <Table.Td>{latest.attempt}</Table.Td>
                    <Table.Td>
                      <Badge color={state.color} data-testid="delivery-state">
                        {state.label}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Button
                        size="xs"
                        variant="subtle"
                        onClick={() => redeliver.mutate(latest)}
                        aria-label={`Redeliver ${latest.event} of ${formatTime(latest.created_at)}`}
                      >
                        Redeliver
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {(page > 1 || logs.data.meta.next_page !== null) && (
        <Pager page={page} hasNext={logs.data.meta.next_page !== null} onPage={setPage} />
      )}
    </Stack>
  );
}

export function WebhooksPage() {
  const queryClient = useQueryClient();
  const [revealed, setRevealed] = useState<Webhook | null>(null);
  const [openLogs, setOpenLogs] = useState<number | null>(null);
  const webhooks = useQuery({
    queryKey: WEBHOOKS,
    queryFn: () => api.get<WebhookListResponse>('/developer/webhooks'),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: WEBHOOKS });
  const action = useMutation({
    mutationFn: async ({
      kind,
      webhook,
    }: {
      kind: 'rotate' | 'toggle' | 'test' | 'delete';
      webhook: Webhook;
    }) => {
      const path = `/developer/webhooks/${webhook.id}`;
      if (kind === 'delete') return api.delete(path);
      if (kind === 'rotate') return api.post<WebhookResponse>(`${path}/rotate-secret`);
      if (kind === 'toggle') return api.post<WebhookResponse>(`${path}/toggle`);
      return api.post(`${path}/test`);
    },
    onSuccess: (answer, { kind, webhook }) => {
      if (kind === 'rotate') setRevealed((answer as WebhookResponse).webhook);
      if (kind === 'test') setOpenLogs(webhook.id);
      if (kind === 'delete' && openLogs === webhook.id) setOpenLogs(null);
      void queryClient.invalidateQueries({ queryKey: ['webhook-logs', webhook.id] });
    },
    onSettled: refresh,
  });

  return (
    <Stack>
      <Title order={1}>Developer → Webhooks</Title>
      <Text size="sm" c="dimmed">
        Switchboard sends each subscribed event to your URL, signed with the webhook's secret, and
        retries a failed delivery up to 3 attempts in all.
      </Text>
      {revealed && <SecretOnce webhook={revealed} onDone={() => setRevealed(null)} />}
      <CreateWebhookForm
        onCreated={(webhook) => {
          setRevealed(webhook);
          void refresh();
        }}
      />
      <ErrorAlert error={action.error} />
      <section aria-labelledby="webhook-list">
        <Title order={2} size="h4" id="webhook-list" mb="xs">
          Your webhooks
        </Title>
        {webhooks.isPending && <Text>Loading…</Text>}
        <ErrorAlert error={webhooks.error} />
        {webhooks.data && webhooks.data.webhooks.length === 0 && (
          <Text c="dimmed">No webhooks yet: create one above.</Text>
        )}
        {webhooks.data && webhooks.data.webhooks.length > 0 && (
          <Table.ScrollContainer minWidth={800}>
            <ListTable
              label="Webhooks"
              headings={['Name', 'URL', 'Events', 'Secret', 'State', 'Actions']}
            >
              {webhooks.data.webhooks.map((webhook) => (
                <Table.Tr key={webhook.id} data-testid="webhook-row">
                  <Table.Td>{webhook.name}</Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace">
                      {webhook.url}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs">{webhook.events.join(', ')}</Text>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Code data-testid="masked-secret">{webhook.secret}</Code>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Badge color={webhook.active ? 'teal.9' : 'gray.7'}>
                      {webhook.active ? 'active' : 'paused'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => setOpenLogs(openLogs === webhook.id ? null : webhook.id)}
                        aria-expanded={openLogs === webhook.id}
                        aria-label={`Delivery log of ${webhook.name}`}
                      >
                        Log
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => action.mutate({ kind: 'test', webhook })}
                        aria-label={`Send a test event to ${webhook.name}`}
                      >
                        Test
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => action.mutate({ kind: 'toggle', webhook })}
                        aria-label={`${webhook.active ? 'Pause' : 'Activate'} ${webhook.name}`}
                      >
                        {webhook.active ? 'Pause' : 'Activate'}
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => action.mutate({ kind: 'rotate', webhook })}
                        aria-label={`Rotate secret of ${webhook.name}`}
                      >
                        Rotate secret
                      </Button>
                      <ConfirmButton
                        label={`Delete ${webhook.name}`}
                        color="red"
                        question={`Delete the webhook “${webhook.name}” and its log?`}
                        onConfirm={() => action.mutate({ kind: 'delete', webhook })}
                      >
                        Delete
                      </ConfirmButton>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </ListTable>
          </Table.ScrollContainer>
        )}
      </section>
      {openLogs !== null && webhooks.data?.webhooks.find((w) => w.id === openLogs) && (
        <Paper withBorder p="md" component="section">
          <DeliveryLogs webhook={webhooks.data.webhooks.find((w) => w.id === openLogs)!} />
        </Paper>
      )}
    </Stack>
  );
}
