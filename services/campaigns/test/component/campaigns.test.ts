import { connect, type ChannelModel } from 'amqplib';
import { randomUUID } from 'node:crypto';
import {
  CAMPAIGN_OPERATIONS,
  CONSOLE_EXCHANGE,
  ConsoleEventSchema,
  type CampaignProgressEvent,
  CampaignResponseSchema,
  CampaignsResponseSchema,
  CAMPAIGN_ID_HEADER,
  EVENT_PAYLOAD_SCHEMAS,
  MESSAGING_INTERNAL_PATHS,
  QUOTA_MESSAGE_PREFIX,
  SendCampaignResponseSchema,
  buildOpenApiDocument,
  type BrokerEvent,
  type CampaignView,
} from '@switchboard/contracts';
import {
  startCampaignsSystem,
  uniquePhone,
  waitFor,
  type CampaignsSystem,
  type Organization,
} from '../support/campaigns-harness';

jest.setTimeout(90_000);

let system: CampaignsSystem;
let consoleTap: ChannelModel;
/** Every event published on `svc.console`, in arrival order; any that breaks its contract fails. */
const consoleEvents: CampaignProgressEvent[] = [];

beforeAll(async () => {
  system = await startCampaignsSystem('campaigns', {
    campaignsEnv: { DISPATCH_PAGE_SIZE: '7', DB_COMMAND_STATS: 'true' },
  });
  consoleTap = await connect(system.amqpUrl);
  const channel = await consoleTap.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, CONSOLE_EXCHANGE, 'campaign_progress');
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      const event = ConsoleEventSchema.parse(JSON.parse(message.content.toString()));
      if (event.event === 'campaign_progress') consoleEvents.push(event);
    },
    { noAck: true },
  );
});

afterAll(async () => {
  await consoleTap?.close();
  await system?.stop();
});

/**
 * What campaigns handed messaging for this phone: the texts of its commands and the sends it
 * asked for now (an API campaign's), in order.
 */
const sentTo = async (phone: string) =>
  system.messaging.messagesTo(phone).filter((message) => message.direction === 'outbound');
/** Everything campaigns handed messaging: commands and sends now. */
const allSent = async () =>
  system.commands.length +
  system.messaging.calls.filter((call) => call.route.includes('/api/svc/send')).length;

let groupSeq = 0;
const groups = new Map<string, number>();
/** Contacts of a group of the organization, at contacts. */
async function contactsInGroup(org: Organization, group: string, count: number) {
  const key = `${org.company_id}:${group}`;
  if (!groups.has(key)) groups.set(key, (groupSeq += 1));
  const phones: string[] = [];
  for (let i = 0; i < count; i++) {
    const phone = uniquePhone();
    phones.push(phone);
    system.contacts.add(org.company_id, {
      name: `Guest ${i}`,
      phone,
      groups: [{ id: groups.get(key)!, name: group }],
    });
  }
  return phones;
}

async function groupId(org: Organization, name: string): Promise<number> {
  return groups.get(`${org.company_id}:${name}`)!;
}

async function campaignOf(org: Organization, id: number): Promise<CampaignView> {
  return CampaignResponseSchema.parse((await org.api.get('getCampaign', { id })).body).campaign;
}

const eventsOf = (name: string, id: number) =>
  system.events.filter((event) => event.event === name && (event.data as { id: number }).id === id);

type SentStatus = Extract<BrokerEvent, { event: 'message_status_updated' }>;

/**
 * A completed campaign to `count` new contacts of a group whose provider reports only sent, and
 * those sent statuses as the broker handed them over: the test brings the later statuses itself.
 */
async function campaignReportedSentOnly(org: Organization, group: string, count: number) {
  system.messaging.reportStatuses(org.company_id, ['sent']);
  const phones = await contactsInGroup(org, group, count);
  const created = await org.api.post('createCampaign', {
    name: group,
    type: 'regular',
    message: { type: 'text', text: group },
    audience: { type: 'groups', group_ids: [await groupId(org, group)] },
    send_now: true,
  });
  const { campaign } = CampaignResponseSchema.parse(created.body);
  await waitFor(async () => {
    const current = await campaignOf(org, campaign.id);
    return current.status === 'completed' ? current : undefined;
  }, 30_000);
  expect(await campaignOf(org, campaign.id)).toMatchObject({ sent: count, delivered: 0, read: 0 });
  const sentOfCampaign = () =>
    system.events.filter(
      (event): event is SentStatus =>
        event.event === 'message_status_updated' &&
        event.campaign_id === campaign.id &&
        event.data.status === 'sent',
    );
  // The harness records events as the broker hands them over, which can trail the campaign's
  // own count of them.
  const sentStatuses = await waitFor(() => {
    const found = sentOfCampaign();
    return found.length >= phones.length ? found : undefined;
  });
  expect(sentStatuses).toHaveLength(phones.length);
  return { campaign, sentStatuses };
}

/** The same message's later status, as a new event. */
const statusOf = (event: SentStatus, status: 'delivered' | 'read' | 'failed'): SentStatus => ({
  ...event,
  id: randomUUID(),
  data: { ...event.data, status },
});

/** The sum of a counter of campaigns' `/metrics` over the series whose labels hold `label`. */
async function campaignsMetric(name: string, label: string): Promise<number> {
  const text = await (await fetch(`${system.campaigns.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(label))
    .reduce((sum, line) => sum + Number(line.trim().split(' ').at(-1)), 0);
}

/** Publishes the events in order, all at once, and waits until campaigns has acked every one. */
async function publishAndWait(events: BrokerEvent[]): Promise<void> {
  const acked = () => campaignsMetric('switchboard_broker_messages_total', 'outcome="acked"');
  const ackedBefore = await acked();
  await Promise.all(events.map((event) => system.publishEvent(event)));
  await waitFor(async () => ((await acked()) - ackedBefore >= events.length ? true : undefined));
}

/** publishAndWait, answering how many database commands campaigns sent meanwhile. */
async function publishAndCountCommands(events: BrokerEvent[]): Promise<number> {
  const commands = () => campaignsMetric('switchboard_db_commands_total', 'command=');
  const before = await commands();
  await publishAndWait(events);
  return (await commands()) - before;
}

describe('a regular campaign, from start to completion', () => {
  test('when a campaign to a group is sent now, then every member gets one filled-in message, counters follow the statuses and campaign_completed comes once', async () => {
    const org = await system.newOrganization('standard', 'Regular Co');
    const phones = await contactsInGroup(org, 'vip', 16);
    const created = await org.api.post('createCampaign', {
      name: 'Spring sale',
      type: 'regular',
      message: { type: 'text', text: 'Hi {{1}}, spring sale starts today' },
      variables: ['contact.name'],
      audience: { type: 'groups', group_ids: [await groupId(org, 'vip')] },
      send_now: true,
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    expect(campaign).toMatchObject({ status: 'started', total_contacts: 16 });

    const done = await waitFor(async () => {
      const current = await campaignOf(org, campaign.id);
      return current.status === 'completed' ? current : undefined;
    }, 30_000);
    expect(done).toMatchObject({ total_contacts: 16, sent: 16, failed: 0 });
    for (const phone of phones) {
      const received = await sentTo(phone);
      expect(received).toHaveLength(1);
      expect(received[0]!.message).toMatch(/^Hi Guest \d+, spring sale starts today$/);
    }
    const read = await waitFor(async () => {
      const current = await campaignOf(org, campaign.id);
      return current.read === 16 ? current : undefined;
    }, 30_000);
    expect(read.delivered).toBe(16);

    const started = eventsOf('campaign_started', campaign.id);
    expect(started).toHaveLength(1);
    expect(EVENT_PAYLOAD_SCHEMAS.campaign_started.parse(started[0]!.data)).toEqual({
      id: campaign.id,
      name: 'Spring sale',
      total_contacts: 16,
      created_at: campaign.created_at,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const completed = eventsOf('campaign_completed', campaign.id);
    expect(completed).toHaveLength(1);
    expect(EVENT_PAYLOAD_SCHEMAS.campaign_completed.parse(completed[0]!.data)).toMatchObject({
      id: campaign.id,
      total_contacts: 16,
    });
    // Message events of the campaign carry it outside `data`, which stays as the spec has it.
    const sentEvents = system.events.filter(
      (event) => event.event === 'message_sent' && event.campaign_id === campaign.id,
    );
    expect(sentEvents).toHaveLength(16);
  });

  test('when messaging tells each message’s outcomes in one batch message, then every recipient counts sent, delivered and read once and the campaign completes', async () => {
    const org = await system.newOrganization('standard', 'Batched Co');
    await contactsInGroup(org, 'batched', 6);
    system.outcomesInBatches(true);
    try {
      const created = await org.api.post('createCampaign', {
        name: 'Batched',
        type: 'regular',
        message: { type: 'text', text: 'All at once' },
        audience: { type: 'groups', group_ids: [await groupId(org, 'batched')] },
        send_now: true,
      });
      const { campaign } = CampaignResponseSchema.parse(created.body);
      const done = await waitFor(async () => {
        const current = await campaignOf(org, campaign.id);
        return current.status === 'completed' && current.read === 6 ? current : undefined;
      }, 30_000);
      expect(done).toMatchObject({ total_contacts: 6, sent: 6, delivered: 6, read: 6, failed: 0 });
      const completed = await waitFor(() => {
        const found = eventsOf('campaign_completed', campaign.id);
        return found.length > 0 ? found : undefined;
      });
      expect(completed).toHaveLength(1);
    } finally {
      system.outcomesInBatches(false);
    }
  });

  test('when a campaign moves, then the console hears campaign_progress on svc.console, counts never going back, at most one per 250 ms, the last one completed with the final counts', async () => {
    const org = await system.newOrganization('standard', 'Progress Co');
    await contactsInGroup(org, 'watchers', 6);
    const created = await org.api.post('createCampaign', {
      name: 'Watched',
      type: 'regular',
      message: { type: 'text', text: 'Watch this' },
      audience: { type: 'groups', group_ids: [await groupId(org, 'watchers')] },
      send_now: true,
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    const progressOf = () => consoleEvents.filter((e) => e.data.campaign_id === campaign.id);

    const last = await waitFor(async () => {
      const final = progressOf().at(-1);
      return final?.data.status === 'completed' && final.data.read === 6 ? final : undefined;
    }, 30_000);
    expect(last).toMatchObject({
      company_id: org.company_id,
      data: { campaign_id: campaign.id, total: 6, sent: 6, delivered: 6, read: 6, failed: 0 },
    });
    const progress = progressOf();
    expect(progress.some((event) => event.data.status === 'started')).toBe(true);
    for (const [earlier, later] of progress.slice(1).map((event, i) => [progress[i]!, event])) {
      for (const count of ['sent', 'delivered', 'read'] as const) {
        expect(later!.data[count]).toBeGreaterThanOrEqual(earlier!.data[count]);
      }
      expect(Date.parse(later!.timestamp) - Date.parse(earlier!.timestamp)).toBeGreaterThanOrEqual(
        245,
      );
    }
  });

  test('when a recipient is undeliverable, then it counts as failed and the campaign still completes', async () => {
    const org = await system.newOrganization('standard', 'Failing Co');
    const phones = await contactsInGroup(org, 'some', 3);
    system.messaging.failNext(phones[1]!);
    const created = await org.api.post('createCampaign', {
      name: 'With a bad number',
      type: 'regular',
      message: { type: 'text', text: 'News' },
      audience: { type: 'contacts', contact_ids: await contactIds(org, phones) },
      send_now: true,
    });
    const { campaign } = CampaignResponseSchema.parse(created.body);
    const done = await waitFor(async () => {
      const current = await campaignOf(org, campaign.id);
      return current.status === 'completed' ? current : undefined;
    }, 30_000);
    expect(done).toMatchObject({ total_contacts: 3, sent: 2, failed: 1 });
  });

  test('when many of a campaign’s message events come at once, repeated and out of order, then each recipient counts once and each event costs about one database command', async () => {
    const org = await system.newOrganization('standard', 'Burst Co');
    const { campaign, sentStatuses } = await campaignReportedSentOnly(org, 'burst', 20);

    // Every recipient's delivered and read, twice each; half of them read before delivered.
    const burst = sentStatuses.flatMap((event, index) => {
      const order =
        index % 2 === 0 ? (['delivered', 'read'] as const) : (['read', 'delivered'] as const);
      return [0, 1].flatMap(() => order.map((status) => statusOf(event, status)));
    });
    const commands = await publishAndCountCommands(burst);

    expect(await campaignOf(org, campaign.id)).toMatchObject({
      status: 'completed',
      sent: 20,
      delivered: 20,
      read: 20,
      failed: 0,
    });
    // One at a time, each event was a read, a move, a counter write and a completion check.
    expect(commands / burst.length).toBeLessThan(1.5);
  });

  test('when many recipients’ statuses come in together, then a batch of them costs a few database commands however many recipients it moves', async () => {
    const org = await system.newOrganization('standard', 'Crowd Co');
    const { campaign, sentStatuses } = await campaignReportedSentOnly(org, 'crowd', 40);
    const burst = sentStatuses.flatMap((event) =>
      (['delivered', 'read'] as const).map((status) => statusOf(event, status)),
    );
    const commands = await publishAndCountCommands(burst);

    expect(await campaignOf(org, campaign.id)).toMatchObject({
      status: 'completed',
      sent: 40,
      delivered: 40,
      read: 40,
      failed: 0,
    });
    // One conditional move per event that moved a recipient would be 1 per event.
    expect(commands / burst.length).toBeLessThan(0.5);
  });

  test('when a recipient’s failure comes among its statuses, then it counts as failed only if it came before the read, and nothing after it moves the recipient', async () => {
    const org = await system.newOrganization('standard', 'Mixed Co');
    const { campaign, sentStatuses } = await campaignReportedSentOnly(org, 'mixed', 12);
    // In order, twice over: 0–3 delivered, failed, read (failed); 4–7 read, failed (read);
    // 8–11 failed, delivered (failed, never delivered).
    const orders = [
      ['delivered', 'failed', 'read'],
      ['read', 'failed'],
      ['failed', 'delivered'],
    ] as const;
    const burst = [0, 1].flatMap(() =>
      sentStatuses.flatMap((event, index) =>
        orders[Math.floor(index / 4)]!.map((status) => statusOf(event, status)),
      ),
    );
    await publishAndWait(burst);

    expect(await campaignOf(org, campaign.id)).toMatchObject({
      status: 'completed',
      sent: 12,
      delivered: 8,
      read: 4,
      failed: 8,
    });
  });

  test('when a campaign is scheduled, then it starts by itself at its time', async () => {
    const org = await system.newOrganization('standard', 'Scheduled Co');
    const phones = await contactsInGroup(org, 'later', 2);
    const created = await org.api.post('createCampaign', {
      name: 'Later',
      type: 'regular',
      message: { type: 'text', text: 'Scheduled hello' },
      audience: { type: 'all' },
      scheduled_at: new Date(Date.now() + 1_500).toISOString(),
    });
    const { campaign } = CampaignResponseSchema.parse(created.body);
    expect(campaign.status).toBe('scheduled');
    expect(await sentTo(phones[0]!)).toHaveLength(0);
    await waitFor(
      async () => ((await campaignOf(org, campaign.id)).status === 'completed' ? true : undefined),
      30_000,
    );
    expect(await sentTo(phones[0]!)).toHaveLength(1);
  });
});

async function contactIds(org: Organization, phones: string[]): Promise<number[]> {
  return phones.map(
    (phone) =>
      system.contacts.contacts.find((c) => c.company_id === org.company_id && c.phone === phone)!
        .id,
  );
}

describe('quotas (the published plan limits): all or nothing', () => {
  test('when a free organization starts its third campaign of the month, then it is refused and nothing is sent', async () => {
    const org = await system.newOrganization('free', 'Free Co');
    const [phone] = await contactsInGroup(org, 'one', 1);
    const body = {
      type: 'regular',
      message: { type: 'text', text: 'Hello' },
      audience: { type: 'all' },
      send_now: true,
    };
    for (const name of ['First', 'Second']) {
      expect((await org.api.post('createCampaign', { ...body, name })).status).toBe(201);
    }
    const third = await org.api.post('createCampaign', { ...body, name: 'Third' });
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'quota_exceeded' });
    expect(third.body.message).toMatch(new RegExp(`^${QUOTA_MESSAGE_PREFIX}`));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await sentTo(phone!)).toHaveLength(2);
    const listed = CampaignsResponseSchema.parse((await org.api.get('getCampaigns')).body);
    expect(listed.campaigns.map((campaign) => campaign.name)).toEqual(['First', 'Second']);
  });

  test('when a free organization with 100 messages left starts a 150-recipient campaign, then it is refused whole with zero sends', async () => {
    const org = await system.newOrganization('free', 'Big Free Co');
    // 150 customers who wrote first; the free plan's month has 100 messages at messaging.
    for (let i = 0; i < 150; i++) system.contacts.add(org.company_id, { phone: uniquePhone() });
    system.messaging.setRoom(org.company_id, 100);
    const before = await allSent();
    const refused = await org.api.post('createCampaign', {
      name: 'Too big',
      type: 'regular',
      message: { type: 'text', text: 'Hello all' },
      audience: { type: 'all' },
      send_now: true,
    });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(new RegExp(`^${QUOTA_MESSAGE_PREFIX}`));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await allSent()).toBe(before);
    expect((await org.api.get('getCampaigns')).body.campaigns).toEqual([]);
    // Nothing was held: the month's messages are all still there.
    expect(system.messaging.held(org.company_id)).toBe(0);
  });
});

describe('a start interrupted by a crash', () => {
  test('when a start died after messaging held its messages but before recording that, then the scheduler gives back the messages and the campaign of the month, and it starts again whole', async () => {
    const org = await system.newOrganization('free', 'Crash Start Co');
    const phones = await contactsInGroup(org, 'crash', 3);
    const created = await org.api.post('createCampaign', {
      name: 'Interrupted',
      type: 'regular',
      message: { type: 'text', text: 'Hello' },
      audience: { type: 'groups', group_ids: [await groupId(org, 'crash')] },
    });
    const { campaign } = CampaignResponseSchema.parse(created.body);
    // The state a process killed at that instant leaves, three minutes ago: the campaign's step
    // says its campaign of the month is held; messaging also holds its three messages, under
    // the attempt's name, which the campaign never recorded.
    const claimedAt = new Date(Date.now() - 3 * 60_000);
    const attempt = `campaign:${campaign.id}:${claimedAt.getTime()}`;
    const month = claimedAt.toISOString().slice(0, 7);
    const campaignsDb = system.campaigns.db;
    await campaignsDb
      .collection<{ _id: string; count: number; reservations: Record<string, number> }>(
        'campaign_quotas',
      )
      .insertOne({ _id: `${org.company_id}:${month}`, count: 1, reservations: { [attempt]: 1 } });
    await campaignsDb
      .collection<{ _id: string }>('campaigns')
      .updateOne(
        { _id: String(campaign.id) },
        { $set: { start_step: 'campaign_quota', start_claimed_at: claimedAt } },
      );
    const reserved = await fetch(
      `${system.messaging.url}${MESSAGING_INTERNAL_PATHS.reserveQuota}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          company_id: org.company_id,
          plan: 'free',
          plan_started_at: org.organization.plan_started_at.toISOString(),
          count: 3,
          reservation_id: attempt,
        }),
      },
    );
    expect(reserved.status).toBe(200);
    const messagesUsed = async () => system.messaging.held(org.company_id);
    expect(await messagesUsed()).toBe(3);

    // The scheduler job (every 5 s) undoes starts left half-way for two minutes: it gives back
    // both, then sets the start step back to none.
    const startStep = async () =>
      (
        await campaignsDb.collection<{ _id: string; start_step: string }>('campaigns').findOne({
          _id: String(campaign.id),
        })
      )?.start_step;
    await waitFor(
      async () =>
        (await startStep()) === 'none' && (await messagesUsed()) === 0 ? true : undefined,
      20_000,
    );
    expect((await campaignOf(org, campaign.id)).status).toBe('draft');
    const quota = await campaignsDb
      .collection<{ _id: string; count: number }>('campaign_quotas')
      .findOne({ _id: `${org.company_id}:${month}` });
    expect(quota?.count).toBe(0);

    const started = await org.api.post('startCampaign', { id: campaign.id });
    expect(started.status).toBe(200);
    await waitFor(
      async () => ((await campaignOf(org, campaign.id)).status === 'completed' ? true : undefined),
      20_000,
    );
    for (const phone of phones) expect(await sentTo(phone)).toHaveLength(1);
    expect(await messagesUsed()).toBe(3);
  });
});

describe('API campaigns (sendcampaigns)', () => {
  let org: Organization;
  let apiCampaign: CampaignView;

  beforeAll(async () => {
    org = await system.newOrganization('standard', 'Api Co');
    const created = await org.api.post('createCampaign', {
      name: 'Order shipped',
      type: 'api',
      message: { type: 'text', text: 'Hi {{1}}, order {{2}} is on its way' },
      variables: ['contact.name', { data: 'order.id' }],
    });
    apiCampaign = CampaignResponseSchema.parse(created.body).campaign;
  });

  test('when sendcampaigns names a new phone with data, then the contact is made and the filled message is sent', async () => {
    const phone = uniquePhone();
    system.contacts.add(org.company_id, { name: 'Olga', phone });
    const sent = await org.api.post('sendcampaigns', {
      phone,
      campaing_id: apiCampaign.id,
      data: { order: { id: 'A-77' } },
    });
    expect(sent.status).toBe(200);
    const ids = SendCampaignResponseSchema.parse(sent.body);
    expect(ids.message_wamid).toMatch(/^wamid\./);
    expect((await sentTo(phone))[0]!.message).toBe('Hi Olga, order A-77 is on its way');
  });

  test('when the data comes as form brackets to sendCampaignMessageToPhoneNumber, then it is read the same', async () => {
    const phone = uniquePhone();
    const response = await org.api.form(
      'POST',
      'sendCampaignMessageToPhoneNumber',
      `phone=${phone}&campaing_id=${apiCampaign.id}&data[order][id]=7`,
    );
    expect(response.status).toBe(200);
    // A new contact is named after its phone.
    expect((await sentTo(phone))[0]!.message).toBe(`Hi ${phone}, order 7 is on its way`);
  });

  test('when a variable is missing, then 422 lists its path and nothing is sent or stored', async () => {
    const phone = uniquePhone();
    const answer = await org.api.post('sendcampaigns', {
      phone,
      campaign_id: apiCampaign.id,
      data: { order: {} },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('data.order.id');
    expect(await sentTo(phone)).toHaveLength(0);
    expect(system.contacts.contacts.find((c) => c.phone === phone)).toBeUndefined();
  });

  test('when the campaign is unknown, not an API campaign, or another organization’s, then 404', async () => {
    const regular = await org.api.post('createCampaign', {
      name: 'Draft',
      type: 'regular',
      message: { type: 'text', text: 'x' },
      audience: { type: 'all' },
    });
    const other = await system.newOrganization('standard', 'Other Api Co');
    for (const [client, id] of [
      [org, 987_654],
      [org, regular.body.campaign.id as number],
      [other, apiCampaign.id],
    ] as const) {
      const answer = await client.api.post('sendcampaigns', {
        phone: uniquePhone(),
        campaing_id: id,
      });
      expect(answer.status).toBe(404);
    }
  });
});

describe('template campaigns: every placeholder of the template filled', () => {
  // The template `shipping_update` is messaging's: a text header `Order {{1}}`, a body
  // `Hi {{1}}, your order ships on {{2}}.` and a URL button `https://shop.example/track/{{1}}`.
  // Campaigns names it and fills every placeholder.
  const templateMessage = {
    type: 'template',
    template_name: 'shipping_update',
    template_language: 'en_US',
    header_variable: { data: 'order.id' },
    button_variables: [{ index: 1, source: { data: 'order.id' } }],
  };

  test('when an API campaign sends a template, then its header, body and URL button take their values from the contact and data', async () => {
    const org = await system.newOrganization('standard', 'Template Co');
    const created = await org.api.post('createCampaign', {
      name: 'Shipping',
      type: 'api',
      message: templateMessage,
      variables: ['contact.name', { data: 'order.day' }],
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    const phone = uniquePhone();
    system.contacts.add(org.company_id, { name: 'Ana', phone });

    const sent = await org.api.post('sendcampaigns', {
      phone,
      campaing_id: campaign.id,
      data: { order: { id: 'A-7', day: 'Friday' } },
    });
    expect(sent.status).toBe(200);
    // Messaging's sendtemplatemessage, asked with every placeholder of the template filled.
    const [asked] = system.messaging.calls.filter(
      (call) => call.route === 'POST /api/svc/sendtemplatemessage',
    );
    expect(asked!.request.headers[CAMPAIGN_ID_HEADER]).toBe(String(campaign.id));
    expect(asked!.request.body).toEqual({
      phone,
      template_name: 'shipping_update',
      template_language: 'en_US',
      components: [
        { type: 'header', parameters: [{ type: 'text', text: 'A-7' }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: 'Friday' },
          ],
        },
        {
          type: 'button',
          sub_type: 'url',
          index: '1',
          parameters: [{ type: 'text', text: 'A-7' }],
        },
      ],
    });

    const missing = await org.api.post('sendcampaigns', {
      phone,
      campaing_id: campaign.id,
      data: { order: { day: 'Friday' } },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe('data: missing variables: data.order.id');
  });

  test('when a regular template campaign names a data path for its header, or gives a header twice or a button twice, then 422', async () => {
    const org = await system.newOrganization('standard', 'Template Bad Co');
    const attempts = [
      { ...templateMessage, button_variables: undefined },
      {
        ...templateMessage,
        header_variable: 'contact.name',
        header_media: { type: 'image', link: 'https://cdn.example/a.png' },
        button_variables: undefined,
      },
      {
        ...templateMessage,
        header_variable: 'contact.name',
        button_variables: [
          { index: 1, source: 'contact.phone' },
          { index: 1, source: 'contact.name' },
        ],
      },
    ];
    const messages = [];
    for (const message of attempts) {
      const answer = await org.api.post('createCampaign', {
        name: 'Bad',
        type: 'regular',
        message,
        audience: { type: 'all' },
      });
      expect(answer.status).toBe(422);
      messages.push(answer.body.message);
    }
    expect(messages[0]).toContain('data paths are only for api campaigns');
    expect(messages[1]).toContain('a header is text or media, not both');
    expect(messages[2]).toContain('one variable per button index');
  });
});

describe('managing campaigns, bad input and isolation', () => {
  test('when campaigns are listed, then type filters them and another organization sees none of them', async () => {
    const org = await system.newOrganization('standard', 'Lister Co');
    const other = await system.newOrganization('standard', 'Peeker Co');
    await org.api.post('createCampaign', {
      name: 'Bot',
      type: 'bot',
      keywords: 'price, offer',
      message: { type: 'text', text: 'Our prices' },
    });
    const draft = await org.api.post('createCampaign', {
      name: 'Draft',
      type: 'regular',
      message: { type: 'text', text: 'x' },
      audience: { type: 'all' },
    });
    const bots = CampaignsResponseSchema.parse(
      (await org.api.get('getCampaigns', { type: 'bot' })).body,
    );
    expect(bots.campaigns.map((c) => [c.name, c.keywords])).toEqual([['Bot', ['price', 'offer']]]);
    expect((await other.api.get('getCampaigns')).body.campaigns).toEqual([]);
    const id = draft.body.campaign.id as number;
    for (const operation of ['cancelCampaign', 'deleteCampaign', 'startCampaign']) {
      expect((await other.api.post(operation, { id })).status).toBe(404);
    }
    expect((await other.api.get('getCampaign', { id })).status).toBe(404);
    expect((await org.api.post('deleteCampaign', { id })).status).toBe(200);
    expect((await org.api.get('getCampaign', { id })).status).toBe(404);
  });

  test('when a campaign is canceled before its time, then it never sends; a completed one cannot be canceled', async () => {
    const org = await system.newOrganization('standard', 'Cancel Co');
    const [phone] = await contactsInGroup(org, 'c', 1);
    const created = await org.api.post('createCampaign', {
      name: 'Canceled',
      type: 'regular',
      message: { type: 'text', text: 'Never' },
      audience: { type: 'all' },
      scheduled_at: new Date(Date.now() + 1_000).toISOString(),
    });
    const id = created.body.campaign.id as number;
    const canceled = await org.api.post('cancelCampaign', { id });
    expect(canceled.body.campaign.status).toBe('canceled');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await sentTo(phone!)).toHaveLength(0);
    expect((await org.api.post('startCampaign', { id })).status).toBe(409);
  });

  test.each([
    [{ type: 'regular', message: { type: 'text', text: 'x' } }, 'name'],
    [{ name: 'n', type: 'regular', message: { type: 'text', text: 'x' } }, 'audience'],
    [{ name: 'n', type: 'weekly', message: { type: 'text', text: 'x' } }, 'type'],
    [{ name: 'n', type: 'bot', message: { type: 'text', text: 'x' } }, 'keywords'],
    [{ name: 'n', type: 'api', message: { type: 'fax' } }, 'message'],
    [
      {
        name: 'n',
        type: 'api',
        message: { type: 'text', text: 'x' },
        variables: [{ field: 'age' }],
      },
      'variables',
    ],
    [
      {
        name: 'n',
        type: 'regular',
        message: { type: 'text', text: 'x' },
        audience: { type: 'all' },
        variables: ['data.x'],
      },
      'variables',
    ],
    [{ name: { $gt: '' }, type: 'api', message: { type: 'text', text: 'x' } }, 'name'],
  ])('when createCampaign gets bad input, then 422 names the field (%#)', async (body, field) => {
    const org = await system.newOrganization('standard', 'Bad Input Co');
    const answer = await org.api.post('createCampaign', body as Record<string, unknown>);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ status: 'error', code: 'validation_failed' });
    expect(answer.body.message).toContain(field);
  });

  test('when the OpenAPI document is built, then every campaign operation is in it', () => {
    const document = buildOpenApiDocument();
    for (const operation of CAMPAIGN_OPERATIONS) {
      expect(document.paths[operation.path]?.[operation.method]).toBeDefined();
    }
  });
});
