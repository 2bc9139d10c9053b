import { createHash, randomUUID } from 'node:crypto';
import { connect } from 'amqplib';
import {
  EXCHANGES,
  MESSAGING_INTERNAL_PATHS,
  MessagingSendCommandSchema,
  QUEUES,
  ROUTING_KEYS,
  deadQueueFor,
  monthKey,
  type BrokerEvent,
  type MessagingSendCommandInput,
} from '@switchboard/contracts';
import {
  eventsOf,
  sleep,
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;
let org: Organization;

beforeAll(async () => {
  system = await startMessagingSystem('msgoutbox');
  org = await system.newOrganization('free', 'Outbox Co');
});

afterAll(async () => {
  await system?.stop();
});

afterEach(async () => {
  await system.sim('DELETE', '/faults');
});

const messagingDb = () => system.stack.messaging.db;

async function sentTo(phone: string): Promise<unknown[]> {
  return (await system.sim('GET', `/sent?to=${phone}&include_rejected=true`)).sent as unknown[];
}

function command(overrides: Partial<MessagingSendCommandInput>): MessagingSendCommandInput {
  return {
    company_id: org.company_id,
    plan: org.created.organization.plan,
    plan_started_at: org.created.organization.plan_started_at,
    content: { type: 'text', message: 'From a campaign' },
    idempotency_key: `key-${randomUUID()}`,
    ...overrides,
  };
}

/** Hands a command to messaging as campaigns would; the broker message id is the key by default. */
const sendCommand = (body: MessagingSendCommandInput, messageId = body.idempotency_key) =>
  system.publish(EXCHANGES.commands, ROUTING_KEYS.commands.send, body, messageId);

const isEventFor =
  (name: 'message_sent' | 'message_failed', phone: string) => (event: BrokerEvent) =>
    event.event === name && (event.data as { phone: string }).phone === phone;

describe('the event outbox', () => {
  test('when messaging died between writing a record and publishing its event, then the relay publishes it and clears it', async () => {
    // The state a crash leaves: a message written with its event, never published.
    const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    const eventId = randomUUID();
    const timestamp = new Date(Date.now() - 60_000).toISOString();
    const event = {
      id: eventId,
      event: 'message_sent',
      timestamp,
      company_id: org.company_id,
      data: {
        message_id: id,
        message_wamid: `wamid.crash${id}`,
        contact_id: 999_999_999,
        phone: '393480000000',
        company_id: org.company_id,
      },
    };
    await messagingDb()
      .collection<{ _id: string } & Record<string, unknown>>('messages')
      .insertOne({
        _id: String(id),
        id,
        company_id: org.company_id,
        contact_id: 999_999_999,
        phone: '393480000000',
        direction: 'outbound',
        type: 'text',
        message: 'written before the crash',
        wamid: `wamid.crash${id}`,
        status: 'sent',
        error: null,
        status_times: { sent: new Date(timestamp) },
        history: [],
        statuses_seen: [],
        created_at: new Date(timestamp),
        updated_at: new Date(timestamp),
        pending_events: { [eventId]: event },
        pending_ids: [eventId],
      });

    const published = await waitFor(
      () => system.events.find((item) => item.id === eventId),
      10_000,
      'the left-behind event',
    );
    expect(published).toEqual(event);
    const cleared = await waitFor(async () => {
      const doc = await messagingDb()
        .collection<{ _id: string; pending_ids: string[]; pending_events: object }>('messages')
        .findOne({ _id: String(id) });
      return doc?.pending_ids.length === 0 ? doc : undefined;
    });
    expect(cleared.pending_events).toEqual({});
    await sleep(600);
    expect(system.events.filter((item) => item.id === eventId)).toHaveLength(1);
  });
});

describe('messaging.send commands', () => {
  test('when a send command arrives twice, then one message is sent and announced once', async () => {
    const phone = uniquePhone();
    const body = command({ phone, campaign_id: 77 });
    await sendCommand(body);
    await sendCommand(body, `${body.idempotency_key}:again`);
    const sent = await waitFor(() => system.events.find(isEventFor('message_sent', phone)));
    await sleep(700);
    expect(await sentTo(phone)).toHaveLength(1);
    const message_id = (sent.data as { message_id: number }).message_id;
    expect(eventsOf(system.events, 'message_sent', message_id)).toHaveLength(1);
    const messages = await org.api.get('getMessages', {
      contact_id: (sent.data as { contact_id: number }).contact_id,
    });
    expect(messages.body.messages).toEqual([
      expect.objectContaining({ id: message_id, campaign_id: 77, message: 'From a campaign' }),
    ]);
  });

  test('when a command names a contact, then the message goes to its phone', async () => {
    const phone = uniquePhone();
    const made = await org.api.post('makeContact', { name: 'Bea', phone });
    const body = command({
      contact_id: made.body.contact.id,
      content: { type: 'template', template_name: 'no_such_template', template_language: 'en' },
    });
    await sendCommand(body);
    // An unknown template is refused before the provider: recorded as failed, once, so that
    // the command's producer (a campaign) sees the outcome of every command.
    const failed = await waitFor(() => system.events.find(isEventFor('message_failed', phone)));
    expect((failed.data as { error: string }).error).toBe(
      'template_name: no template no_such_template in en',
    );
    await sleep(300);
    expect(await sentTo(phone)).toHaveLength(0);
    expect(system.events.filter(isEventFor('message_failed', phone))).toHaveLength(1);
  });

  test('when a command names both the contact and its phone, then it is sent as given without asking contacts', async () => {
    const phone = uniquePhone();
    // No contact has this id: a lookup would refuse the command, so a send proves none was made.
    const body = command({ contact_id: 987_654_320, phone, contact_name: 'From the audience' });
    await sendCommand(body);
    const sent = await waitFor(() => system.events.find(isEventFor('message_sent', phone)));
    expect((sent.data as { contact_id: number }).contact_id).toBe(987_654_320);
    expect(await sentTo(phone)).toHaveLength(1);
  });

  test('when a command names an unknown contact, then it is parked with the reason', async () => {
    const body = command({ contact_id: 987_654_321 });
    await sendCommand(body);
    const amqp = await connect(system.amqpUrl);
    try {
      const channel = await amqp.createChannel();
      const parked = await waitFor(async () => {
        const message = await channel.get(deadQueueFor(QUEUES.messagingCommands), { noAck: true });
        return message || undefined;
      });
      expect(parked.properties.messageId).toBe(body.idempotency_key);
      expect(String(parked.properties.headers?.['x-dead-reason'])).toContain('not_found');
    } finally {
      await amqp.close();
    }
  });

  test('when the provider is down for a whole attempt, then the command is retried later and sent once', async () => {
    // An organization of its own: four failures alone do not open its channel's breaker.
    const fresh = await system.newOrganization('standard', 'Patient Co');
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, http_status: 503, count: 4 });
    const body = {
      ...command({ phone }),
      company_id: fresh.company_id,
      plan: 'standard' as const,
      plan_started_at: fresh.created.organization.plan_started_at,
    };
    await sendCommand(body);
    await waitFor(
      () => system.events.find(isEventFor('message_sent', phone)),
      15_000,
      'message_sent after the broker retry',
    );
    expect(await sentTo(phone)).toHaveLength(5);
    expect(system.events.filter(isEventFor('message_failed', phone))).toHaveLength(0);
  });
});

describe('a command with a chained message (then)', () => {
  test('when a command chains a second message and arrives twice, then each is sent once and the chained one second', async () => {
    const phone = uniquePhone();
    const body = {
      ...command({ phone, content: { type: 'text' as const, message: 'First' } }),
      then: { content: { type: 'text' as const, message: 'Second' } },
    };
    for (const copy of ['', ':again']) {
      await sendCommand(body, `${body.idempotency_key}${copy}`);
    }
    type TextRecord = { request: { text: { body: string } } };
    await waitFor(async () => ((await sentTo(phone)).length >= 2 ? true : undefined));
    await sleep(700);
    const texts = ((await sentTo(phone)) as TextRecord[]).map((record) => record.request.text.body);
    expect(texts).toEqual(['First', 'Second']);
  });

  test('when the first message is refused, then the chained one is not sent', async () => {
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, error_code: 131026, count: 1 });
    const body = {
      ...command({ phone, content: { type: 'text' as const, message: 'Refused' } }),
      then: { content: { type: 'text' as const, message: 'Never' } },
    };
    await sendCommand(body);
    await waitFor(() => system.events.find(isEventFor('message_failed', phone)));
    await sleep(700);
    const texts = ((await sentTo(phone)) as { request: { text: { body: string } } }[]).map(
      (record) => record.request.text.body,
    );
    expect(texts).toEqual(['Refused']);
  });
});

describe('a command meeting a send a dead process still holds', () => {
  test('when its idempotency key is held by a lease that outlasts the command’s attempts, then the command waits the lease out instead of being parked, and is sent once', async () => {
    const phone = uniquePhone();
    const body = command({ phone });
    // What a process killed right after claiming the key leaves: a record with no message and no
    // answer, held for SEND_LEASE_MS (60 s) from its creation. 25 s are left of it here, longer
    // than the five attempts a command has (4 retries × 5 s).
    await messagingDb()
      .collection<Record<string, unknown> & { _id: string }>('idempotency_keys')
      .insertOne({
        _id: `${org.company_id}:command:${body.idempotency_key}`,
        company_id: org.company_id,
        fingerprint: createHash('sha256')
          .update(
            JSON.stringify({
              recipient: { phone },
              content: MessagingSendCommandSchema.parse(body).content,
            }),
          )
          .digest('hex'),
        message_id: 999_000_000 + Math.floor(Math.random() * 1_000_000),
        response: null,
        created_at: new Date(Date.now() - 35_000),
      });

    await sendCommand(body);

    await waitFor(
      () => system.events.find(isEventFor('message_sent', phone)),
      45_000,
      'message_sent once the lease ran out',
    );
    expect(await sentTo(phone)).toHaveLength(1);
  });
});

describe('the internal message quota API (for campaigns)', () => {
  const call = (path: string, body: unknown) => system.messagingInternal(path, body);

  test('when a campaign reserves more than is left, then nothing is held; what fits is held whole', async () => {
    const free = await system.newOrganization('free', 'Campaign Co');
    const who = {
      company_id: free.company_id,
      plan: 'free',
      plan_started_at: free.created.organization.plan_started_at,
    };
    const tooMany = await call(MESSAGING_INTERNAL_PATHS.reserveQuota, { ...who, count: 101 });
    expect(tooMany.status).toBe(429);
    const fits = await call(MESSAGING_INTERNAL_PATHS.reserveQuota, { ...who, count: 100 });
    expect(fits.body).toEqual({ status: 'success', month: monthKey(), reserved: 100 });
    const full = await call(MESSAGING_INTERNAL_PATHS.reserveQuota, { ...who, count: 1 });
    expect(full.status).toBe(429);

    // A command whose place is already held is sent without reserving again.
    const phone = uniquePhone();
    const body = {
      ...command({ phone }),
      company_id: free.company_id,
      quota_reserved: true,
      quota_month: monthKey(),
    };
    await sendCommand(body);
    await waitFor(() => system.events.find(isEventFor('message_sent', phone)));
    const released = await call(MESSAGING_INTERNAL_PATHS.releaseQuota, {
      company_id: free.company_id,
      month: monthKey(),
      count: 99,
    });
    expect(released.body).toMatchObject({ released: 99 });
  });

  test('when a named reservation is asked twice and given back twice, then it is held once and given back once', async () => {
    const free = await system.newOrganization('free', 'Named Co');
    const who = {
      company_id: free.company_id,
      plan: 'free',
      plan_started_at: free.created.organization.plan_started_at,
    };
    const named = { ...who, count: 60, reservation_id: 'campaign:7:1700000000000' };
    expect((await call(MESSAGING_INTERNAL_PATHS.reserveQuota, named)).status).toBe(200);
    // Asked again (a retry that never saw the first answer): nothing more is taken.
    expect((await call(MESSAGING_INTERNAL_PATHS.reserveQuota, named)).status).toBe(200);
    expect((await call(MESSAGING_INTERNAL_PATHS.reserveQuota, { ...who, count: 40 })).status).toBe(
      200,
    );
    const byName = {
      company_id: free.company_id,
      month: monthKey(),
      reservation_id: named.reservation_id,
    };
    const first = await call(MESSAGING_INTERNAL_PATHS.releaseQuota, byName);
    expect(first.body).toMatchObject({ released: 60 });
    const again = await call(MESSAGING_INTERNAL_PATHS.releaseQuota, byName);
    expect(again.body).toMatchObject({ released: 0 });
    // 40 of 100 still held: 60 fit again, 61 do not.
    expect((await call(MESSAGING_INTERNAL_PATHS.reserveQuota, { ...who, count: 61 })).status).toBe(
      429,
    );
    const both = await call(MESSAGING_INTERNAL_PATHS.releaseQuota, {
      ...byName,
      count: 1,
    });
    expect(both.status).toBe(422);
  });
});
