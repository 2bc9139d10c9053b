import { randomUUID } from 'node:crypto';
import { EXCHANGES, QUEUES } from '@switchboard/contracts';
import {
  brokerEvent,
  createWebhook,
  newCompanyId,
  startHarness,
  waitFor,
  type Harness,
} from '../support/harness';
import { startReceiver, type Receiver } from '../support/receiver';

jest.setTimeout(60_000);

let harness: Harness;
const receivers: Receiver[] = [];

beforeAll(async () => {
  harness = await startHarness('wh_recovery');
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await harness?.stop();
});

const idsSeenBy = (receiver: Receiver) =>
  new Set(receiver.requests.map((request) => request.headers['x-webhook-id'] as string));

describe('nothing is lost', () => {
  test('when the broker drops the service connection in the middle of a burst, then every event still reaches every receiver', async () => {
    const companyId = newCompanyId();
    const endpoints = [
      await startReceiver(() => ({ status: 200, delayMs: 20 })),
      await startReceiver(() => ({ status: 200, delayMs: 5 })),
    ];
    receivers.push(...endpoints);
    for (const endpoint of endpoints) {
      const { secret } = await createWebhook(harness, companyId, {
        url: endpoint.url,
        events: ['message_status_updated'],
      });
      endpoint.trust(secret);
    }
    const events = Array.from({ length: 120 }, () =>
      brokerEvent('message_status_updated', companyId),
    );

    for (const event of events.slice(0, 60)) await harness.publish(event);
    await waitFor(() => endpoints[0]!.requests.length >= 20, 10_000, 'the burst to start');
    // What a RabbitMQ restart does to the service: its connection is closed under it.
    await harness.killBrokerConnection();
    for (const event of events.slice(60)) await harness.publish(event);

    const expected = new Set(events.map((event) => event.id));
    for (const endpoint of endpoints) {
      await waitFor(() => idsSeenBy(endpoint).size === expected.size, 30_000, 'every event');
      expect(idsSeenBy(endpoint)).toEqual(expected);
      expect(endpoint.requests.every((request) => request.verified)).toBe(true);
    }
  });
});

describe('poison messages', () => {
  async function parked(queue: string) {
    return waitFor(
      async () => (await harness.channel.get(queue, { noAck: true })) || undefined,
      5_000,
      queue,
    );
  }

  test('when an event is not valid JSON, then it is parked in webhooks.events.dead with the reason', async () => {
    await harness.publishRaw(EXCHANGES.events, 'message_sent', Buffer.from('{"event": '));
    const message = await parked(`${QUEUES.webhooksEvents}.dead`);
    expect(String(message.properties.headers?.['x-dead-reason'])).toMatch(/unparsable JSON/);
  });

  test('when an event breaks its schema, then it is parked with the field named and nothing is delivered', async () => {
    const companyId = newCompanyId();
    const endpoint = await startReceiver();
    receivers.push(endpoint);
    await createWebhook(harness, companyId, { url: endpoint.url, events: ['message_sent'] });
    const event = { ...brokerEvent('message_sent', companyId), data: { message_id: 'x' } };
    await harness.publishRaw(EXCHANGES.events, 'message_sent', Buffer.from(JSON.stringify(event)));

    const message = await parked(`${QUEUES.webhooksEvents}.dead`);
    expect(String(message.properties.headers?.['x-dead-reason'])).toMatch(/^invalid message: data/);
    expect(endpoint.requests).toHaveLength(0);
  });

  test('when a delivery message is malformed, then it is parked in webhooks.deliveries.dead', async () => {
    await harness.publishRaw(
      '',
      QUEUES.webhooksDeliveries,
      Buffer.from(JSON.stringify({ delivery_id: randomUUID(), attempt: 'first' })),
    );
    const message = await parked(`${QUEUES.webhooksDeliveries}.dead`);
    expect(String(message.properties.headers?.['x-dead-reason'])).toContain('attempt');
  });

  test('when a delivery message names no webhook, then it is dropped without any attempt', async () => {
    const message = {
      delivery_id: randomUUID(),
      webhook_id: 987_654,
      attempt: 1,
      event_id: randomUUID(),
      event: 'message_sent',
      payload: '{}',
      generation: 0,
    };
    await harness.publishRaw('', QUEUES.webhooksDeliveries, Buffer.from(JSON.stringify(message)));
    await waitFor(
      async () => (await harness.channel.checkQueue(QUEUES.webhooksDeliveries)).messageCount === 0,
    );
    expect(
      (await harness.channel.checkQueue(`${QUEUES.webhooksDeliveries}.dead`)).messageCount,
    ).toBe(0);
  });
});

describe('an attempt is made once', () => {
  test('when two copies of one attempt reach the same replica together (a dead replica’s retry and the one its redelivered message published again), then the endpoint gets one request and the log one row', async () => {
    const companyId = newCompanyId();
    const endpoint = await startReceiver(() => ({ status: 200, delayMs: 400 }));
    receivers.push(endpoint);
    const { id } = await createWebhook(harness, companyId, {
      url: endpoint.url,
      events: ['message_sent'],
    });
    const event = brokerEvent('message_sent', companyId);
    const message = {
      delivery_id: `${event.id}.${id}`,
      webhook_id: id,
      attempt: 2,
      event_id: event.id,
      event: 'message_sent',
      payload: JSON.stringify({
        event: 'message_sent',
        timestamp: event.timestamp,
        data: event.data,
      }),
      generation: 0,
    };
    await harness.publishRaw('', QUEUES.webhooksDeliveries, Buffer.from(JSON.stringify(message)));
    await harness.publishRaw(
      '',
      QUEUES.webhooksDeliveries,
      Buffer.from(JSON.stringify({ ...message, possibly_duplicate: true })),
    );

    await waitFor(() => endpoint.requests.length >= 1, 10_000, 'the attempt');
    await waitFor(
      async () => (await harness.channel.checkQueue(QUEUES.webhooksDeliveries)).messageCount === 0,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(endpoint.requests).toHaveLength(1);
  });
});
