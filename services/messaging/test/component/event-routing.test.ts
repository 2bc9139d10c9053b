import { randomUUID } from 'node:crypto';
import { connect, type Channel, type ChannelModel } from 'amqplib';
import {
  BrokerEventMessageSchema,
  EXCHANGES,
  QUEUES,
  ROUTING_KEYS,
  SendMessageResponseSchema,
  brokerEventsOf,
  topologyFor,
  type BrokerEvent,
} from '@switchboard/contracts';
import { assertTopology } from '@switchboard/service-kit';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;
let org: Organization;
let amqp: ChannelModel;
let channel: Channel;

beforeAll(async () => {
  system = await startMessagingSystem('msgrouting');
  org = await system.newOrganization('free', 'Routing Co');
  amqp = await connect(system.amqpUrl);
  channel = await amqp.createChannel();
  // The queues of the services that read messaging's events, bound as they bind them.
  for (const service of ['campaigns', 'gateway', 'webhooks'] as const) {
    await assertTopology(channel, topologyFor(service));
  }
});

afterAll(async () => {
  await amqp?.close();
  await system?.stop();
});

/** The events of a message on a queue bound to `svc.events`: one, or a batch's, as its consumer reads them. */
const eventsIn = (content: Buffer): BrokerEvent[] =>
  brokerEventsOf(BrokerEventMessageSchema.parse(JSON.parse(content.toString())));

/** Everything waiting in `queue`, taken off it. */
async function drain(queue: string): Promise<BrokerEvent[]> {
  const taken: BrokerEvent[] = [];
  for (;;) {
    const message = await channel.get(queue, { noAck: true });
    if (!message) return taken;
    taken.push(...eventsIn(message.content));
  }
}

/**
 * What reaches `queue` until `enough` says so, by consuming it (the live events queue has a single
 * active consumer, which RabbitMQ does not let `basic.get` read).
 */
async function consumeUntil(
  queue: string,
  enough: (events: BrokerEvent[]) => boolean,
): Promise<BrokerEvent[]> {
  const taken: BrokerEvent[] = [];
  const { consumerTag } = await channel.consume(
    queue,
    (message) => {
      if (message) taken.push(...eventsIn(message.content));
    },
    { noAck: true },
  );
  await waitFor(() => (enough(taken) ? true : undefined), 10_000, `the events on ${queue}`);
  await channel.cancel(consumerTag);
  return taken;
}

const messageIdOf = (event: BrokerEvent) => (event.data as { message_id?: number }).message_id;

/** message_sent and the sent, delivered and read statuses: the four events of a message read. */
const allFourOf = (messageId: number) =>
  waitFor(
    () => {
      const found = system.events.filter((event) => messageIdOf(event) === messageId);
      return found.length >= 4 ? found : undefined;
    },
    20_000,
    `the four events of message ${messageId}`,
  );

describe('who receives the events of a message', () => {
  test("when a direct send and a campaign's send are read, then campaigns receives only the campaign's four events, while webhooks and the console's live events receive all eight", async () => {
    const direct = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Not a campaign',
    });
    expect(direct.status).toBe(200);
    const directId = SendMessageResponseSchema.parse(direct.body).message_id;

    const campaignPhone = uniquePhone();
    const key = `key-${randomUUID()}`;
    await system.publish(
      EXCHANGES.commands,
      ROUTING_KEYS.commands.sendCampaign,
      {
        company_id: org.company_id,
        plan: org.created.organization.plan,
        plan_started_at: org.created.organization.plan_started_at,
        content: { type: 'text', message: 'From a campaign' },
        idempotency_key: key,
        phone: campaignPhone,
        campaign_id: 4242,
      },
      key,
    );
    const campaignSent = await waitFor(
      () =>
        system.events.find(
          (event) =>
            event.event === 'message_sent' &&
            (event.data as { phone: string }).phone === campaignPhone,
        ),
      20_000,
      "the campaign message's message_sent",
    );
    const campaignId = messageIdOf(campaignSent)!;

    // Published events are routed to every bound queue at once: once the test's own queue has
    // all eight, each service's queue holds whatever it will ever get of them.
    const directEvents = await allFourOf(directId);
    const campaignEvents = await allFourOf(campaignId);
    const ours = (events: BrokerEvent[]) =>
      events
        .filter((event) => [directId, campaignId].includes(messageIdOf(event)!))
        .map((event) => event.id)
        .sort();

    const toCampaigns = await drain(QUEUES.campaignsEvents);
    expect(ours(toCampaigns)).toEqual(ours(campaignEvents));
    expect(toCampaigns.every((event) => event.campaign_id === 4242)).toBe(true);
    const everything = ours([...directEvents, ...campaignEvents]);
    expect(ours(await drain(QUEUES.webhooksEvents))).toEqual(everything);
    const live = await consumeUntil(QUEUES.gatewayLiveEvents, (got) => ours(got).length >= 8);
    expect(ours(live)).toEqual(everything);
  });
});
