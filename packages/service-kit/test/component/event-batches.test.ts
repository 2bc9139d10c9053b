import { randomUUID } from 'node:crypto';
import { connect, type Channel, type ChannelModel } from 'amqplib';
import {
  BROKER_TOPOLOGY,
  BrokerEventMessageSchema,
  EXCHANGES,
  LiveEventsQueueMessageSchema,
  QUEUES,
  brokerEventsOf,
  eventRoutingKey,
  type BrokerEvent,
} from '@switchboard/contracts';
import { Broker, assertTopology, eventBatchPublisher, eventPublisher } from '../../src/broker';
import { createEventRelay, type OutboxSource } from '../../src/outbox';
import { createLogger } from '../../src/logger';
import { isolatedAmqpUrl } from '../../../../test/support/test-infra';

const logger = createLogger('event-batches-test', 'silent');
let vhost: { url: string; drop: () => Promise<void> };
let admin: ChannelModel;
let channel: Channel;
let broker: Broker;

beforeAll(async () => {
  vhost = await isolatedAmqpUrl('event_batches');
  admin = await connect(vhost.url);
  channel = await admin.createChannel();
  await assertTopology(channel, BROKER_TOPOLOGY);
  broker = new Broker({ url: vhost.url, connectionName: 'event-batches-test', logger });
  await broker.start();
});

afterAll(async () => {
  await broker.stop();
  await admin.close();
  await vhost.drop();
});

/** A message's outcomes as messaging announces them: sent, then delivered and read. */
function outcomesOf(messageId: number, campaignId?: number): BrokerEvent[] {
  const base = {
    company_id: 7,
    timestamp: new Date(Date.now() + messageId).toISOString(),
    ...(campaignId ? { campaign_id: campaignId } : {}),
  };
  const wamid = `wamid.${messageId}`;
  return [
    {
      ...base,
      id: randomUUID(),
      event: 'message_sent',
      data: {
        message_id: messageId,
        message_wamid: wamid,
        contact_id: 3,
        phone: '+15550001111',
        company_id: 7,
      },
    },
    ...(['sent', 'delivered', 'read'] as const).map((status): BrokerEvent => ({
      ...base,
      id: randomUUID(),
      event: 'message_status_updated',
      data: {
        message_id: messageId,
        message_wamid: wamid,
        status,
        error: null,
        contact_id: 3,
        company_id: 7,
      },
    })),
  ];
}

/** A source whose writes are elsewhere: the relay of handed-over events needs only clears. */
const source: OutboxSource = {
  name: 'records',
  withPending: async () => [],
  pendingOf: async () => [],
  clear: async () => undefined,
};

/** Everything waiting in `queue` (all confirmed, so all counted), content parsed, message id kept. */
async function drain(queue: string): Promise<{ messageId: unknown; body: unknown }[]> {
  const { messageCount } = await channel.checkQueue(queue);
  const messages: { messageId: unknown; body: unknown }[] = [];
  if (messageCount === 0) return messages;
  // A consumer, not basic.get: the live feed's queue has a single active consumer.
  const reader = await admin.createChannel();
  await new Promise<void>((resolve) => {
    void reader.consume(
      queue,
      (message) => {
        if (!message) return;
        messages.push({
          messageId: message.properties.messageId,
          body: JSON.parse(message.content.toString('utf8')) as unknown,
        });
        if (messages.length === messageCount) resolve();
      },
      { noAck: true },
    );
  });
  await reader.close();
  return messages;
}

const idsOf = (events: { id: string }[]) => events.map((event) => event.id);

describe('events a relay pass publishes together', () => {
  test('when the outcomes of direct and campaign sends are relayed together, then each queue receives exactly its events, once, in order per message, in batch messages its consumer reads', async () => {
    const direct = [1, 2, 3, 4, 5].map((id) => ({ id: `m${id}`, events: outcomesOf(id) }));
    const campaign = [6, 7].map((id) => ({ id: `m${id}`, events: outcomesOf(id, 42) }));
    const records = [direct[0]!, campaign[0]!, ...direct.slice(1), campaign[1]!];
    const relay = createEventRelay({
      sources: [source],
      publish: eventPublisher(broker, 'test', EXCHANGES.events, eventRoutingKey),
      publishMany: eventBatchPublisher(broker, 'test', EXCHANGES.events, eventRoutingKey),
      logger,
      sweepIntervalMs: 60_000,
      graceMs: 60_000,
    });
    relay.relayWrittenSoon(source, records);
    await relay.stop();

    const webhooks = await drain(QUEUES.webhooksEvents);
    const live = await drain(QUEUES.gatewayLiveEvents);
    const campaigns = await drain(QUEUES.campaignsEvents);
    const read = (
      messages: { messageId: unknown; body: unknown }[],
      consumerSchema: { parse(value: unknown): { id: string } },
    ) =>
      messages.flatMap((message) => {
        const parsed = consumerSchema.parse(message.body);
        // A message's id is its lone event's, or its batch's own.
        expect(message.messageId).toBe(parsed.id);
        return brokerEventsOf<{ id: string }>(parsed);
      });

    const all = records.flatMap((record) => record.events);
    const webhookEvents = read(webhooks, BrokerEventMessageSchema);
    expect(idsOf(webhookEvents).sort()).toEqual(idsOf(all).sort());
    const liveEvents = read(live, LiveEventsQueueMessageSchema);
    expect(idsOf(liveEvents).sort()).toEqual(idsOf(all).sort());
    // Campaigns' queue binds only the campaign's outcomes, batched or not.
    const campaignEvents = read(campaigns, BrokerEventMessageSchema);
    expect(idsOf(campaignEvents).sort()).toEqual(
      idsOf(campaign.flatMap((record) => record.events)).sort(),
    );
    for (const received of [webhookEvents, liveEvents]) {
      for (const record of records) {
        const own = new Set(idsOf(record.events));
        expect(idsOf(received.filter((event) => own.has(event.id)))).toEqual(idsOf(record.events));
      }
    }
    // The direct outcomes in one message, the campaign's in another: 28 events, 2 messages.
    expect(webhooks).toHaveLength(2);
    expect(live).toHaveLength(2);
    expect(campaigns).toHaveLength(1);
  });

  test('when a record holds one event, then it goes as the plain event it always was', async () => {
    const [sent] = outcomesOf(9);
    const publishMany = eventBatchPublisher(broker, 'test', EXCHANGES.events, eventRoutingKey);
    const outcomes = await publishMany([[sent!]]);
    expect(outcomes).toEqual([[{ status: 'fulfilled', value: undefined }]]);
    const webhooks = await drain(QUEUES.webhooksEvents);
    expect(webhooks).toEqual([{ messageId: sent!.id, body: sent }]);
    await drain(QUEUES.gatewayLiveEvents);
  });

  describe('with a gathering window', () => {
    const relayGathering = (gatherMs: number) =>
      createEventRelay({
        sources: [source],
        publish: eventPublisher(broker, 'test', EXCHANGES.events, eventRoutingKey),
        publishMany: eventBatchPublisher(broker, 'test', EXCHANGES.events, eventRoutingKey),
        logger,
        sweepIntervalMs: 60_000,
        graceMs: 60_000,
        gatherMs,
      });
    /** Waits until `queue` holds `count` messages (each publish is confirmed before it counts). */
    async function whenQueued(queue: string, count: number): Promise<void> {
      for (;;) {
        const { messageCount } = await channel.checkQueue(queue);
        if (messageCount >= count) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    test('when writes hand over their events apart within the window, then they go out together in one message', async () => {
      const relay = relayGathering(300);
      const first = { id: 'm11', events: outcomesOf(11).slice(0, 1) };
      const second = { id: 'm12', events: outcomesOf(12).slice(0, 1) };
      relay.relayWrittenSoon(source, [first]);
      await new Promise((resolve) => setTimeout(resolve, 30));
      relay.relayWrittenSoon(source, [second]);
      await whenQueued(QUEUES.webhooksEvents, 1);

      const webhooks = await drain(QUEUES.webhooksEvents);
      expect(webhooks).toHaveLength(1);
      const events = brokerEventsOf<BrokerEvent>(BrokerEventMessageSchema.parse(webhooks[0]!.body));
      expect(idsOf(events)).toEqual(idsOf([...first.events, ...second.events]));
      await relay.stop();
      await drain(QUEUES.gatewayLiveEvents);
    });

    test('when a lone write hands over its events, then they go out after the window without anything else happening', async () => {
      const relay = relayGathering(50);
      const lone = { id: 'm13', events: outcomesOf(13) };
      relay.relayWrittenSoon(source, [lone]);
      await whenQueued(QUEUES.webhooksEvents, 1);

      const webhooks = await drain(QUEUES.webhooksEvents);
      const events = webhooks.flatMap((message) =>
        brokerEventsOf<BrokerEvent>(BrokerEventMessageSchema.parse(message.body)),
      );
      expect(idsOf(events)).toEqual(idsOf(lone.events));
      await relay.stop();
      await drain(QUEUES.gatewayLiveEvents);
    });

    test('when the relay stops while events gather, then they are published before stop resolves', async () => {
      const relay = relayGathering(60_000);
      const late = { id: 'm14', events: outcomesOf(14) };
      relay.relayWrittenSoon(source, [late]);
      await relay.stop();

      const webhooks = await drain(QUEUES.webhooksEvents);
      const events = webhooks.flatMap((message) =>
        brokerEventsOf<BrokerEvent>(BrokerEventMessageSchema.parse(message.body)),
      );
      expect(idsOf(events)).toEqual(idsOf(late.events));
      await drain(QUEUES.gatewayLiveEvents);
    });
  });
});
