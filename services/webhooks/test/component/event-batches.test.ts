import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BrokerEventBatchSchema,
  EXCHANGES,
  QUEUES,
  WebhookEnvelopeSchema,
  eventRoutingKey,
  type BrokerEvent,
} from '@switchboard/contracts';
import {
  brokerEvent,
  createWebhook,
  logsOf,
  newCompanyId,
  startHarness,
  waitFor,
  type Harness,
} from '../support/harness';
import { startReceiver, type Receiver } from '../support/receiver';

jest.setTimeout(30_000);

let harness: Harness;
const receivers: Receiver[] = [];

beforeAll(async () => {
  harness = await startHarness('wh_batches');
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await harness?.stop();
});

/** Publishes `events` as one batch message, as messaging's relay does, under the first one's key. */
async function publishBatch(events: unknown[], id = randomUUID()): Promise<void> {
  const first = events[0] as BrokerEvent;
  await harness.publishRaw(
    EXCHANGES.events,
    eventRoutingKey(first),
    Buffer.from(JSON.stringify({ id, events })),
    id,
  );
}

/** Receivers with webhooks of a new organization subscribed to a message's outcomes. */
async function subscribedReceivers(count: number) {
  const companyId = newCompanyId();
  const endpoints: { endpoint: Receiver; webhookId: number }[] = [];
  for (let n = 0; n < count; n += 1) {
    const endpoint = await startReceiver();
    receivers.push(endpoint);
    const { id, secret } = await createWebhook(harness, companyId, {
      url: endpoint.url,
      events: ['message_sent', 'message_status_updated'],
    });
    endpoint.trust(secret);
    endpoints.push({ endpoint, webhookId: id });
  }
  return { companyId, endpoints };
}

const idsOf = (endpoint: Receiver) =>
  endpoint.requests.map((request) => request.headers['x-webhook-id'] as string);

describe('events that arrive in one batch message', () => {
  test('when a batch of a message’s outcomes arrives, then every subscribed webhook receives each event once, as its own signed delivery', async () => {
    const { companyId, endpoints } = await subscribedReceivers(2);
    const events = [
      brokerEvent('message_sent', companyId),
      brokerEvent('message_status_updated', companyId, { status: 'sent' }),
      brokerEvent('message_status_updated', companyId, { status: 'delivered' }),
      brokerEvent('message_status_updated', companyId, { status: 'read' }),
      // Not subscribed to: delivered to nobody, and no reason to hold the others back.
      brokerEvent('message_received', companyId),
    ];
    BrokerEventBatchSchema.parse({ id: 'checked', events });

    await publishBatch(events);

    const expected = events.slice(0, 4);
    for (const { endpoint, webhookId } of endpoints) {
      await waitFor(() => endpoint.requests.length >= expected.length, 10_000, 'every event');
      expect(idsOf(endpoint).sort()).toEqual(expected.map((event) => event.id).sort());
      for (const request of endpoint.requests) {
        expect(request.verified).toBe(true);
        const event = expected.find((e) => e.id === request.headers['x-webhook-id'])!;
        expect(request.headers['x-webhook-event']).toBe(event.event);
        expect(WebhookEnvelopeSchema.parse(JSON.parse(request.body.toString('utf8')))).toEqual({
          event: event.event,
          timestamp: event.timestamp,
          data: event.data,
        });
      }
      // One logged attempt per event.
      const logs = await waitFor(
        async () => {
          const rows = await logsOf(harness, companyId, webhookId);
          return rows.length >= expected.length && rows;
        },
        5_000,
        'the delivery logs',
      );
      expect(logs.map((log) => log.event_id as string).sort()).toEqual(
        expected.map((event) => event.id).sort(),
      );
    }
  });

  test('when a batch arrives again, also grown by an event (a retry of a batch handled in part), then only the new event is delivered', async () => {
    const { companyId, endpoints } = await subscribedReceivers(1);
    const { endpoint, webhookId } = endpoints[0]!;
    const first = [
      brokerEvent('message_sent', companyId),
      brokerEvent('message_status_updated', companyId, { status: 'delivered' }),
    ];
    await publishBatch(first);
    await waitFor(() => endpoint.requests.length === 2, 10_000, 'the first batch');

    const added = brokerEvent('message_status_updated', companyId, { status: 'read' });
    await publishBatch(first);
    await publishBatch([...first, added]);
    const marker = brokerEvent('message_sent', companyId);
    await harness.publish(marker);

    await waitFor(() => endpoint.requests.length >= 4, 10_000, 'the new event and the marker');
    await sleep(300);
    expect(idsOf(endpoint).sort()).toEqual(
      [...first, added, marker].map((event) => event.id).sort(),
    );
    const logs = await waitFor(
      async () => {
        const rows = await logsOf(harness, companyId, webhookId);
        return rows.length >= 4 && rows;
      },
      5_000,
      'the delivery logs',
    );
    await sleep(300);
    expect(await logsOf(harness, companyId, webhookId)).toHaveLength(logs.length);
    expect(logs).toHaveLength(4);
  });

  test('when a batch holds a malformed event, then the whole batch is parked with the reason and nothing of it is delivered', async () => {
    const { companyId, endpoints } = await subscribedReceivers(1);
    const good = brokerEvent('message_sent', companyId);
    const bad = { ...brokerEvent('message_status_updated', companyId), data: { message_id: 'x' } };
    const batchId = randomUUID();
    await publishBatch([good, bad], batchId);

    const parked = await waitFor(
      async () =>
        (await harness.channel.get(`${QUEUES.webhooksEvents}.dead`, { noAck: true })) || undefined,
      5_000,
      'the parked batch',
    );
    expect(parked.properties.messageId).toBe(batchId);
    expect(String(parked.properties.headers?.['x-dead-reason'])).toMatch(
      /^invalid message: events\.1\.data/,
    );
    expect(JSON.parse(parked.content.toString('utf8'))).toEqual({
      id: batchId,
      events: [good, bad],
    });
    expect(endpoints[0]!.endpoint.requests).toHaveLength(0);
  });
});
