import { createHash, createHmac, randomBytes } from 'node:crypto';
import { connect, type Channel as AmqpChannel, type ChannelModel } from 'amqplib';
import {
  EXCHANGES,
  InboundChannelResponseSchema,
  ROUTING_KEYS,
  ProviderQueueMessageSchema,
  RECEIVE_BATCH_MAX_ITEMS,
  RECEIVE_BATCH_PATH,
  ReceiveBatchRequestSchema,
  ReceiveBatchResponseSchema,
  providerEventsOf,
  type InboundChannel,
  type ProviderEventMessage,
} from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import { managementUrlOf } from '../../../../scripts/rabbitmq-admin';
import { inboundConfigSchema, type InboundConfig } from '../../src/config';
import { startService } from '../../src/start-service';
import { createInboundEventStore } from '../../src/data-access/inbound-event-store';
import { inboundEventIdOf, inboundEventOf } from '../../src/domain/accept-webhook';
import { createWebhookIntake } from '../../src/domain/webhook-intake';
import {
  createContractStub,
  stopInOrder,
  stubRoute,
  type ContractStub,
} from '../../../../test/support/contract-stub';
import {
  AMQP_URL,
  MONGODB_URL,
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  rabbitAdmin,
  randomSecret,
  uniquePrefix,
} from '../../../../test/support/test-infra';

jest.setTimeout(30_000);

const prefix = uniquePrefix('inbound');
let vhost: Awaited<ReturnType<typeof isolatedAmqpUrl>>;
/** Messaging's channel lookup, played by a contract-checked stub. */
let messaging: ContractStub;
let inbound: RunningService<InboundConfig>;
let amqp: ChannelModel;
let tap: AmqpChannel;
let tapQueue: string;
/** Each provider event published, a batch's statuses one by one. */
const published: { routingKey: string; message: ProviderEventMessage }[] = [];
/** The broker messages themselves: how many events each carried. */
const brokerMessages: { routingKey: string; events: number }[] = [];

/** The organization's channel as messaging provisioned it (the admin saw it once). */
const org = {
  organization: { company_id: 7 },
  channel: {
    inbound_url: `http://127.0.0.1:8080/webhook/svc/receive/${randomBytes(32).toString('base64url')}`,
    app_secret: randomSecret(),
    verify_token: randomSecret(),
    phone_number_id: '106540352242922',
    display_phone_number: '+1 555 0100',
  },
};

/** GET /internal/channels/by-inbound-token/{token}: inbound → messaging. */
const CHANNEL_BY_INBOUND_TOKEN = {
  method: 'get',
  path: '/internal/channels/by-inbound-token/{token}',
  responses: { 200: InboundChannelResponseSchema },
} as const;

beforeAll(async () => {
  vhost = await isolatedAmqpUrl('inbound');
  messaging = await createContractStub('messaging', [
    stubRoute(CHANNEL_BY_INBOUND_TOKEN, ({ params }) =>
      params.token === token()
        ? {
            status: 200,
            body: {
              status: 'success',
              channel: {
                company_id: org.organization.company_id,
                app_secret: org.channel.app_secret,
                verify_token: org.channel.verify_token,
                phone_number_id: org.channel.phone_number_id,
                waba_id: '1'.repeat(15),
              },
            },
          }
        : { status: 404, body: { status: 'error', message: 'No channel' } },
    ),
  ]);
  inbound = await startService(
    inboundConfigSchema.parse({
      PORT: '0',
      MONGODB_URL,
      MONGODB_DB_PREFIX: prefix,
      AMQP_URL: vhost.url,
      INTERNAL_API_SECRET: randomSecret(),
      MESSAGING_URL: messaging.url,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      CHANNEL_CACHE_TTL_MS: '0',
      RELAY_INTERVAL_MS: '200',
      // Long enough that the relay never races a request's own publish; the relay test backdates.
      RELAY_GRACE_MS: '10000',
    }),
  );

  amqp = await connect(vhost.url);
  tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  tapQueue = queue;
  // Each key on its own, so that a test can leave one unrouted (its publishes then fail).
  for (const key of Object.values(ROUTING_KEYS.provider)) {
    await tap.bindQueue(queue, EXCHANGES.provider, key);
  }
  await tap.consume(queue, (msg) => {
    if (!msg) return;
    const routingKey = msg.fields.routingKey;
    const events = providerEventsOf(
      ProviderQueueMessageSchema.parse(JSON.parse(msg.content.toString())),
    );
    brokerMessages.push({ routingKey, events: events.length });
    for (const message of events) published.push({ routingKey, message });
    tap.ack(msg);
  });
});

afterAll(async () => {
  await stopInOrder(
    () => amqp?.close(),
    () => inbound?.stop(),
    () => messaging?.stop(),
    () => dropDatabasesWithPrefix(prefix),
    () => vhost?.drop(),
  );
});

const token = () => new URL(org.channel.inbound_url).pathname.split('/').pop()!;
const directUrl = () => `${inbound.url}/webhook/svc/receive/${token()}`;
const sha256 = (body: string) => createHash('sha256').update(body).digest('hex');
const sign = (body: string, secret = org.channel.app_secret) =>
  'sha256=' + createHmac('sha256', secret).update(body).digest('hex');

async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const findEvent = (id: string) => createInboundEventStore(inbound.db).findById(id);

/** Makes a stored event older than the relay's grace, as time would. */
const backdate = (id: string) =>
  inbound.db
    .collection('inbound_events')
    .updateOne({ _id: id as never }, { $set: { received_at: new Date(Date.now() - 60_000) } });

/** Sets (or, with undefined, lifts) how many connections the broker lets into the vhost. */
async function connectionLimit(vhostName: string, limit: number | undefined): Promise<void> {
  const base = new URL(managementUrlOf(AMQP_URL));
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString('base64')}`;
  base.username = '';
  base.password = '';
  const response = await fetch(
    `${base.origin}/api/vhost-limits/${encodeURIComponent(vhostName)}/max-connections`,
    {
      method: limit === undefined ? 'DELETE' : 'PUT',
      headers: { authorization, 'content-type': 'application/json' },
      body: limit === undefined ? undefined : JSON.stringify({ value: limit }),
    },
  );
  if (!response.ok) throw new Error(`vhost limit: ${response.status} ${await response.text()}`);
}

let sequence = 0;
/** A `messages` webhook carrying one inbound text and one status, as Meta batches them. */
function webhookBody(text: string) {
  sequence += 1;
  // Meta escapes non-ASCII as \uXXXX and signs that text (as the Cloud API documents it).
  const escaped = JSON.stringify(text).replace(
    /[\u0080-\uffff]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
  );
  return (
    `{"object":"whatsapp_business_account","entry":[{"id":"${'1'.repeat(15)}","changes":[{"field":"messages","value":` +
    `{"messaging_product":"whatsapp","metadata":{"display_phone_number":"${org.channel.display_phone_number}","phone_number_id":"${org.channel.phone_number_id}"},` +
    `"contacts":[{"profile":{"name":"Ana"},"wa_id":"393471234567"}],` +
    `"messages":[{"from":"393471234567","id":"wamid.in${sequence}","timestamp":"1750263773","type":"text","text":{"body":${escaped}}}],` +
    `"statuses":[{"id":"wamid.out${sequence}","status":"delivered","timestamp":"1750263773","recipient_id":"393471234567"}]}}]}]}`
  );
}

const post = (url: string, body: string, signature = sign(body)) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    body,
  });

describe('inbound webhook (the published inbound webhook)', () => {
  test('when the provider verifies the URL with the right token, then the challenge is echoed', async () => {
    const query = `hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${org.channel.verify_token}`;
    const response = await fetch(`${directUrl()}?${query}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('1158201444');
  });

  test('when the verify token is wrong or the URL unknown, then 403 or 404', async () => {
    const wrong = await fetch(
      `${directUrl()}?hub.mode=subscribe&hub.challenge=1&hub.verify_token=nope`,
    );
    expect(wrong.status).toBe(403);
    const unknown = await fetch(
      `${inbound.url}/webhook/svc/receive/${'x'.repeat(43)}?hub.mode=subscribe&hub.challenge=1&hub.verify_token=x`,
    );
    expect(unknown.status).toBe(404);
  });

  test('when a signed webhook arrives, then it is stored and each kind is published', async () => {
    const body = webhookBody("J'ai mangé des pâtes みどりいろ 👍");
    const response = await post(directUrl(), body);
    expect(response.status).toBe(200);
    // Published before it was stored: the row written before the answer is already marked
    // published, and is never written again.
    const stored = await inbound.db.collection('inbound_events').findOne({ raw_body: body });
    expect(stored?.published_at).toBeInstanceOf(Date);
    expect(stored?.pending ?? []).toEqual([]);

    const mine = (p: { message: ProviderEventMessage }) =>
      JSON.stringify(p.message.value).includes(`wamid.in${sequence}"`) ||
      JSON.stringify(p.message.value).includes(`wamid.out${sequence}"`);
    const messages = await waitFor(() => {
      const found = published.filter(mine);
      return found.length >= 2 ? found : undefined;
    });
    expect(messages.map((m) => m.routingKey).sort()).toEqual([
      'provider.message',
      'provider.status',
    ]);
    const inboundMessage = messages.find((m) => m.routingKey === 'provider.message')!.message;
    expect(inboundMessage).toMatchObject({
      company_id: org.organization.company_id,
      field: 'messages',
    });
    expect(inboundMessage.value.statuses).toBeUndefined();
    expect(JSON.stringify(inboundMessage.value)).toContain('mangé des pâtes みどりいろ 👍');

    // Its id comes from its bytes, and so do its messages' ids (a retry is known downstream).
    const id = inboundEventIdOf(org.organization.company_id, sha256(body));
    expect(messages.map((m) => m.message.id).sort()).toEqual([
      `${id}:0:0:provider.message`,
      `${id}:0:0:provider.status`,
    ]);
    expect(stored).toMatchObject({ _id: id, state: 'accepted', raw_body: body });

    // The copy of the channel inbound keeps to verify without messaging holds its secrets sealed.
    const copies = await inbound.db.collection('channel_copies').find().toArray();
    expect(copies.length).toBeGreaterThan(0);
    const everything = JSON.stringify(copies);
    for (const [name, value] of Object.entries({
      inbound_token: token(),
      app_secret: org.channel.app_secret,
      verify_token: org.channel.verify_token,
    })) {
      expect({ name, found: everything.includes(value) }).toEqual({ name, found: false });
    }
  });

  test('when a signed webhook comes chunked, without a stated length, then it is stored and published as any other', async () => {
    const url = directUrl();
    const body = webhookBody('chunked');
    const bytes = new TextEncoder().encode(body);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.subarray(0, 100));
          controller.enqueue(bytes.subarray(100));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
    const wamid = `wamid.out${sequence}"`;
    await waitFor(() =>
      published.some((p) => JSON.stringify(p.message.value).includes(wamid)) ? true : undefined,
    );
    expect(await inbound.db.collection('inbound_events').countDocuments({ raw_body: body })).toBe(
      1,
    );
  });

  test('when a body is larger than INBOUND_BODY_LIMIT, then 413 and nothing is stored', async () => {
    const body = webhookBody('x'.repeat(3 * 1024 * 1024));
    const response = await post(directUrl(), body);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ status: 'error' });
    expect(
      await inbound.db.collection('inbound_events').countDocuments({ body_sha256: sha256(body) }),
    ).toBe(0);
  });

  test('when the signature is wrong, then 403 and nothing is stored or published', async () => {
    const before = await inbound.db.collection('inbound_events').countDocuments();
    const published0 = published.length;
    const body = webhookBody('forged');
    const response = await post(directUrl(), body, sign(body, 'not-the-app-secret'));
    expect(response.status).toBe(403);
    const missing = await post(directUrl(), body, '');
    expect(missing.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await inbound.db.collection('inbound_events').countDocuments()).toBe(before);
    expect(published.length).toBe(published0);
  });

  test('when a validly signed body is not JSON, then it is stored as rejected, answered 200, not published', async () => {
    const published0 = published.length;
    const body = '{"object": "whatsapp_business_account", "entry": [';
    const response = await post(directUrl(), body);
    expect(response.status).toBe(200);
    const stored = await inbound.db.collection('inbound_events').findOne({ raw_body: body });
    expect(stored).toMatchObject({ state: 'rejected', reason: 'body is not valid JSON' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(published.length).toBe(published0);
  });

  test('when the provider delivers the same webhook twice, then it is stored and published once', async () => {
    const body = webhookBody('twice');
    const published0 = published.length;
    expect((await post(directUrl(), body)).status).toBe(200);
    expect((await post(directUrl(), body)).status).toBe(200);
    await waitFor(() => (published.length >= published0 + 2 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(published.length).toBe(published0 + 2);
    expect(await inbound.db.collection('inbound_events').countDocuments({ raw_body: body })).toBe(
      1,
    );
  });

  test('when many webhooks arrive at once, some of them the same bytes, then each distinct one is stored and published once, their statuses in fewer broker messages', async () => {
    const bodies = Array.from({ length: 30 }, (_, index) => webhookBody(`burst ${index}`));
    const sent = [...bodies, ...bodies.slice(0, 10)];
    const published0 = published.length;
    const brokerMessages0 = brokerMessages.length;
    const answers = await Promise.all(sent.map((body) => post(directUrl(), body)));
    expect(answers.map((answer) => answer.status)).toEqual(sent.map(() => 200));
    // Two messages per webhook: its inbound text and its status.
    await waitFor(() => (published.length >= published0 + 60 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = published.slice(published0).map((item) => item.message.id);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    // Statuses stored together travel together: fewer broker messages than statuses.
    const statusMessages = brokerMessages
      .slice(brokerMessages0)
      .filter((item) => item.routingKey === 'provider.status');
    expect(statusMessages.reduce((sum, item) => sum + item.events, 0)).toBe(30);
    expect(statusMessages.length).toBeLessThan(30);
    const stored = await waitFor(async () => {
      const events = await inbound.db
        .collection('inbound_events')
        .find({ raw_body: { $in: bodies } })
        .toArray();
      return events.every((event) => event.published_at !== null) ? events : undefined;
    });
    expect(stored).toHaveLength(30);
  });

  test('when messaging is down, then a channel seen before is still verified and accepted', async () => {
    await messaging.close();
    try {
      const body = webhookBody('while messaging sleeps');
      const response = await post(directUrl(), body);
      expect(response.status).toBe(200);
      const forged = await post(directUrl(), body, sign(body, 'wrong'));
      expect(forged.status).toBe(403);
    } finally {
      await messaging.reopen();
    }
  });

  test("when copies were kept in clear by an earlier version, then at start they are keyed by the token's digest with sealed secrets, and still verify while messaging is down", async () => {
    const oldToken = randomBytes(32).toString('base64url');
    const secrets = { app_secret: randomBytes(16).toString('hex'), verify_token: 'vt-' + sequence };
    await inbound.db.collection('channel_copies').insertOne({
      _id: oldToken as never,
      company_id: org.organization.company_id,
      phone_number_id: org.channel.phone_number_id,
      waba_id: '1'.repeat(15),
      ...secrets,
      fetched_at: new Date(),
    });
    const { config, port } = inbound;
    await inbound.stop();
    inbound = await startService({ ...config, PORT: port });

    const copies = await inbound.db.collection('channel_copies').find().toArray();
    expect(copies.map((copy) => copy._id)).not.toContain(oldToken);
    expect(JSON.stringify(copies)).not.toContain(oldToken);
    expect(JSON.stringify(copies)).not.toContain(secrets.app_secret);
    expect(copies.every((copy) => /^v2\./.test(String(copy.app_secret_sealed)))).toBe(true);

    await messaging.close();
    try {
      const challenge = `${inbound.url}/webhook/svc/receive/${oldToken}?hub.mode=subscribe&hub.challenge=42`;
      const verified = await fetch(`${challenge}&hub.verify_token=${secrets.verify_token}`);
      expect(verified.status).toBe(200);
      expect(await verified.text()).toBe('42');
      expect((await fetch(`${challenge}&hub.verify_token=wrong`)).status).toBe(403);
    } finally {
      await messaging.reopen();
    }
  });

  test('when a publish fails, then the webhook is still answered and stored unpublished, and the relay publishes it once it can', async () => {
    const body =
      `{"object":"whatsapp_business_account","entry":[{"id":"${'1'.repeat(15)}","changes":[{"field":"message_template_status_update",` +
      `"value":{"event":"APPROVED","message_template_id":${Date.now()},"message_template_name":"hello","message_template_language":"en_US","reason":"NONE"}}]}]}`;
    // Nothing takes template statuses for a while: their publishes come back unroutable.
    await tap.unbindQueue(tapQueue, EXCHANGES.provider, ROUTING_KEYS.provider.templateStatus);
    let id: string;
    try {
      expect((await post(directUrl(), body)).status).toBe(200);
      const stored = await inbound.db.collection('inbound_events').findOne({ raw_body: body });
      expect(stored).toMatchObject({ state: 'accepted', published_at: null });
      id = String(stored!._id);
    } finally {
      await tap.bindQueue(tapQueue, EXCHANGES.provider, ROUTING_KEYS.provider.templateStatus);
    }
    await backdate(id);
    const relayed = await waitFor(() => published.find((p) => p.message.inbound_event_id === id));
    expect(relayed.routingKey).toBe('provider.template_status');
    expect(relayed.message.id).toBe(`${id}:0:0:provider.template_status`);
    await waitFor(async () => ((await findEvent(id))?.published_at ? true : undefined));
    expect(published.filter((p) => p.message.inbound_event_id === id)).toHaveLength(1);
  });

  test('when the broker is down, then the webhook is answered and stored unpublished, and the relay publishes it once the broker is back', async () => {
    const vhostName = decodeURIComponent(new URL(vhost.url).pathname.slice(1));
    const body = webhookBody('while the broker is down');
    let id: string;
    // The broker refuses inbound's connections until the limit is lifted.
    await connectionLimit(vhostName, 0);
    try {
      await rabbitAdmin.closeConnections(
        (connection) => connection.vhost === vhostName && connection.connectionName === 'inbound',
      );
      await waitFor(() => (inbound.broker!.isConnected() ? undefined : true));
      expect((await post(directUrl(), body)).status).toBe(200);
      const stored = await inbound.db.collection('inbound_events').findOne({ raw_body: body });
      expect(stored).toMatchObject({ state: 'accepted', published_at: null });
      id = String(stored!._id);
    } finally {
      await connectionLimit(vhostName, undefined);
    }
    await backdate(id);
    const relayed = await waitFor(() => {
      const found = published.filter((p) => p.message.inbound_event_id === id);
      return found.length === 2 ? found : undefined;
    }, 45_000);
    expect(relayed.map((p) => p.message.id).sort()).toEqual([
      `${id}:0:0:provider.message`,
      `${id}:0:0:provider.status`,
    ]);
    await waitFor(async () => ((await findEvent(id))?.published_at ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(published.filter((p) => p.message.inbound_event_id === id)).toHaveLength(2);
  }, 60_000);

  test("when inbound dies after publishing a webhook and before storing it, then the provider's retry is published again under the same ids and stored once", async () => {
    const body = webhookBody('published, then a crash');
    const id = inboundEventIdOf(org.organization.company_id, sha256(body));
    const ofThisWebhook = () => published.filter((p) => p.message.inbound_event_id === id);
    // The process that dies: its publishes reach the broker, its write never happens, the
    // provider gets no answer.
    const store = createInboundEventStore(inbound.db);
    const dying = createWebhookIntake({
      store: { ...store, insertManyOnce: () => Promise.reject(new Error('killed')) },
      broker: inbound.broker!,
      logger: inbound.logger,
    });
    const channel = { company_id: org.organization.company_id } as InboundChannel;
    await expect(dying.accept(channel, Buffer.from(body))).rejects.toThrow('killed');
    const first = await waitFor(() => (ofThisWebhook().length === 2 ? ofThisWebhook() : undefined));
    expect(await inbound.db.collection('inbound_events').countDocuments({ raw_body: body })).toBe(
      0,
    );

    // The provider sends it again, to inbound alive.
    expect((await post(directUrl(), body)).status).toBe(200);
    const both = await waitFor(() => (ofThisWebhook().length >= 4 ? ofThisWebhook() : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ofThisWebhook()).toHaveLength(4);
    const firstIds = first.map((p) => p.message.id).sort();
    expect(both.map((p) => p.message.id).sort()).toEqual([...firstIds, ...firstIds].sort());
    const rows = await inbound.db.collection('inbound_events').find({ raw_body: body }).toArray();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.published_at).toBeInstanceOf(Date);
  });

  test("when inbound dies after storing a webhook and before answering, then the provider's retry is answered, published again under the same ids and not stored twice", async () => {
    const body = webhookBody('stored, then a crash');
    const event = inboundEventOf(
      { company_id: org.organization.company_id } as InboundChannel,
      Buffer.from(body),
    );
    // What the dead process wrote: the row, published.
    const [outcome] = await createInboundEventStore(inbound.db).insertManyOnce([
      { ...event, published_at: new Date() },
    ]);
    expect(outcome).toMatchObject({ duplicate: false });

    expect((await post(directUrl(), body)).status).toBe(200);
    const again = await waitFor(() => {
      const found = published.filter((p) => p.message.inbound_event_id === event._id);
      return found.length === 2 ? found : undefined;
    });
    expect(again.map((p) => p.message.id).sort()).toEqual(
      event.pending.map((item) => item.message_id).sort(),
    );
    expect(await inbound.db.collection('inbound_events').countDocuments({ raw_body: body })).toBe(
      1,
    );
  });

  test('when a webhook was stored unpublished (the broker down when it came), then the relay publishes its message and status from the raw body, stored once', async () => {
    const store = createInboundEventStore(inbound.db);
    const body = webhookBody('stored before a crash');
    const event = inboundEventOf(
      { company_id: org.organization.company_id } as Parameters<typeof inboundEventOf>[0],
      Buffer.from(body),
      new Date(Date.now() - 60_000),
    );
    const [outcome] = await store.insertManyOnce([event]);
    expect(outcome).toMatchObject({ duplicate: false });
    // What was written: the raw body once, no second copy of its payloads.
    const written = await inbound.db
      .collection('inbound_events')
      .findOne({ _id: event._id as never });
    expect(written).toMatchObject({ raw_body: body, published_at: null });
    expect(JSON.stringify(written)).not.toContain('value_json');

    const relayed = await waitFor(() => {
      const found = published.filter((p) => p.message.inbound_event_id === event._id);
      return found.length === 2 ? found : undefined;
    });
    expect(relayed.map((p) => p.routingKey).sort()).toEqual([
      'provider.message',
      'provider.status',
    ]);
    expect(relayed.map((p) => p.message.id).sort()).toEqual(
      event.pending.map((item) => item.message_id).sort(),
    );
    expect(JSON.stringify(relayed)).toContain('stored before a crash');
    const stored = await waitFor(async () => {
      const found = await store.findById(event._id);
      return found?.published_at ? found : undefined;
    });
    expect(stored.state).toBe('accepted');
  });

  test('when an accepted event of an older version was stored with its publications and never published, then the relay publishes it', async () => {
    const store = createInboundEventStore(inbound.db);
    const id = 'crashed-' + Date.now();
    await store.insertOnce({
      _id: id,
      company_id: org.organization.company_id,
      body_sha256: id,
      raw_body: '{}',
      state: 'accepted',
      reason: null,
      pending: [
        {
          message_id: `${id}:0:0:provider.account_update`,
          routing_key: 'provider.account_update',
          waba_id: '1',
          field: 'account_update',
          value_json: JSON.stringify({ event: 'ACCOUNT_RECONNECTED' }),
        },
      ],
      received_at: new Date(Date.now() - 60_000),
      published_at: null,
    });
    const relayed = await waitFor(() => published.find((p) => p.message.inbound_event_id === id));
    expect(relayed.routingKey).toBe('provider.account_update');
    expect(relayed.message.value).toEqual({ event: 'ACCOUNT_RECONNECTED' });
    // The relay marks the event published after the broker confirmed it, a moment later.
    const stored = await waitFor(async () => {
      const event = await store.findById(id);
      return event?.published_at ? event : undefined;
    });
    expect(stored.pending).toEqual([]);
  });
});

describe("the gateway's batch of webhooks (internal)", () => {
  const batchUrl = () => `${inbound.url}${RECEIVE_BATCH_PATH}`;
  const item = (body: string, signature = sign(body), hookToken = token()) => ({
    token: hookToken,
    signature,
    body: Buffer.from(body).toString('base64'),
  });
  const postBatch = (webhooks: unknown[], secret = inbound.config.INTERNAL_API_SECRET) =>
    fetch(batchUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': secret },
      body: JSON.stringify({ webhooks }),
    });

  test('when good webhooks and bad ones come in one batch, then each is answered as its own request would be, in order, and only the good ones are stored', async () => {
    const good1 = webhookBody('batched one');
    const good2 = webhookBody('batched two');
    const good2Status = `wamid.out${sequence}"`;
    const forged = webhookBody('batched forged');
    const unsigned = webhookBody('batched unsigned');
    const strange = webhookBody('batched unknown token');
    const request = {
      webhooks: [
        item(good1),
        item(forged, sign(forged, 'not-the-app-secret')),
        { token: token(), body: Buffer.from(unsigned).toString('base64') },
        item(strange, sign(strange), 'no-such-token'),
        item(good2),
      ],
    };
    expect(ReceiveBatchRequestSchema.parse(request)).toEqual(request);
    const response = await postBatch(request.webhooks);
    expect(response.status).toBe(200);
    const answer = ReceiveBatchResponseSchema.parse(await response.json());
    expect(answer.results).toEqual([
      { status: 200, body: { status: 'success' } },
      { status: 403, body: { status: 'error', code: 'forbidden', message: 'Invalid signature' } },
      { status: 403, body: { status: 'error', code: 'forbidden', message: 'Invalid signature' } },
      { status: 404, body: { status: 'error', code: 'not_found', message: 'Unknown webhook URL' } },
      { status: 200, body: { status: 'success' } },
    ]);
    // The answers are the single route's own, status and body.
    const single = await post(directUrl(), forged, sign(forged, 'not-the-app-secret'));
    expect({ status: single.status, body: await single.json() }).toEqual(answer.results[1]);

    const events = inbound.db.collection('inbound_events');
    for (const body of [good1, good2]) {
      const stored = await events.findOne({ body_sha256: sha256(body) });
      expect(stored).toMatchObject({ state: 'accepted', raw_body: body });
      // Safe when answered: published already, and stored so.
      expect(stored?.published_at).toBeInstanceOf(Date);
    }
    for (const body of [forged, unsigned, strange]) {
      expect(await events.countDocuments({ body_sha256: sha256(body) })).toBe(0);
    }
    // And published, as a webhook of its own is.
    await waitFor(() =>
      published.some((p) => JSON.stringify(p.message.value).includes(good2Status))
        ? true
        : undefined,
    );
  });

  test('when the batch lacks the internal secret or is not a batch, then it is refused whole and nothing is stored', async () => {
    const body = webhookBody('batched without the secret');
    const refused = await postBatch([item(body)], 'not-the-secret');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ status: 'error', code: 'forbidden' });
    const noSecret = await fetch(batchUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhooks: [item(body)] }),
    });
    expect(noSecret.status).toBe(403);
    const empty = await postBatch([]);
    expect(empty.status).toBe(422);
    const tooMany = await postBatch(
      Array.from({ length: RECEIVE_BATCH_MAX_ITEMS + 1 }, () => item(body)),
    );
    expect(tooMany.status).toBe(422);
    expect(
      await inbound.db.collection('inbound_events').countDocuments({ body_sha256: sha256(body) }),
    ).toBe(0);
  });
});
