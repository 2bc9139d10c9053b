import { randomBytes, randomUUID } from 'node:crypto';
import {
  CreateOrganizationResponseSchema,
  EXCHANGES,
  LiveControlDataSchema,
  LiveEventSchema,
  eventRoutingKey,
  type BrokerEvent,
  type LiveEvent,
} from '@switchboard/contracts';
import { Broker, createLogger, type RunningService } from '@switchboard/service-kit';
import { gatewayConfigSchema, type GatewayConfig } from '../../src/config';
import { startService as startGateway } from '../../src/start-service';
import { startGatewayStack, type GatewayStack } from '../support/gateway-harness';
import { callGateway, signIn, type SignedInSession } from '../../../../test/support/console-client';
import {
  openLiveStream,
  type LiveStreamClient,
  type StreamFrame,
} from '../../../../test/support/live-stream-client';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  uniquePrefix,
} from '../../../../test/support/test-infra';

jest.setTimeout(90_000);

const prefix = uniquePrefix('gwlive');
const PASSWORD = 'correct horse battery';
let stack: GatewayStack;
let amqp: Awaited<ReturnType<typeof isolatedAmqpUrl>>;
let publisher: Broker;
const replicas: RunningService<GatewayConfig>[] = [];
const streams: LiveStreamClient[] = [];

/** What every gateway of this file runs with: sessions checked often, two streams per user. */
const LIVE_ENV = { LIVE_SESSION_CHECK_MS: '200', LIVE_STREAMS_PER_USER: '3' };

beforeAll(async () => {
  amqp = await isolatedAmqpUrl('gwlive');
  stack = await startGatewayStack({ dbPrefix: prefix, amqpUrl: amqp.url, gatewayEnv: LIVE_ENV });
  publisher = new Broker({
    url: amqp.url,
    connectionName: 'live-events-test',
    logger: createLogger('live-events-test', 'silent'),
  });
  await publisher.start();
});

afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

afterAll(async () => {
  await publisher?.stop();
  for (const replica of replicas) await replica.stop();
  await stack?.stop();
  await dropDatabasesWithPrefix(prefix);
  await amqp?.drop();
});

/** Another gateway replica on the same database and broker. */
async function startReplica(env: Record<string, string> = {}) {
  const replica = await startGateway(
    gatewayConfigSchema.parse({
      MONGODB_URL,
      MONGODB_DB_PREFIX: prefix,
      AMQP_URL: amqp.url,
      INTERNAL_API_SECRET: stack.internalSecret,
      ADMIN_API_TOKEN: stack.adminToken,
      MESSAGING_URL: stack.messaging.url,
      LOG_LEVEL: 'silent',
      PORT: '0',
      API_RATE_SCALE: '1000',
      FAILED_AUTH_PER_MINUTE: '100000',
      ...LIVE_ENV,
      ...env,
    }),
  );
  replicas.push(replica);
  return replica;
}

/** An organization with its owner signed in. */
async function signedInOrganization(): Promise<{ company_id: number; owner: SignedInSession }> {
  const email = `owner.${randomBytes(4).toString('hex')}@example.com`;
  const created = await callGateway(
    stack.gateway.url,
    'POST',
    '/admin/organizations',
    { token: stack.adminToken },
    { name: 'Live Co', plan: 'standard', owner_email: email, owner_password: PASSWORD },
  );
  expect(created.status).toBe(201);
  const { organization } = CreateOrganizationResponseSchema.parse(created.body);
  return {
    company_id: organization.company_id,
    owner: await signIn(stack.gateway.url, email, PASSWORD),
  };
}

async function open(
  url: string,
  options: Parameters<typeof openLiveStream>[1],
): Promise<LiveStreamClient> {
  const stream = await openLiveStream(url, options);
  streams.push(stream);
  return stream;
}

/** Opens a stream and waits for its first frame (`ready` or `reset`). */
async function openReady(url: string, options: Parameters<typeof openLiveStream>[1]) {
  const stream = await open(url, options);
  expect(stream.status).toBe(200);
  await stream.waitFor(() => true);
  return stream;
}

let sequence = 0;
function messageSent(company_id: number): LiveEvent {
  sequence += 1;
  return {
    id: randomUUID(),
    event: 'message_sent',
    timestamp: new Date().toISOString(),
    company_id,
    data: {
      message_id: sequence,
      message_wamid: `wamid.${sequence}`,
      contact_id: 7,
      phone: '15550001111',
      company_id,
    },
  };
}

function statusUpdated(company_id: number, message_id: number): LiveEvent {
  return {
    id: randomUUID(),
    event: 'message_status_updated',
    timestamp: new Date().toISOString(),
    company_id,
    data: {
      message_id,
      message_wamid: `wamid.${message_id}`,
      status: 'delivered',
      error: null,
      contact_id: 7,
      company_id,
    },
  };
}

function conversationUpdated(company_id: number): LiveEvent {
  return {
    id: randomUUID(),
    event: 'conversation_updated',
    timestamp: new Date().toISOString(),
    company_id,
    data: { contact_id: 7, assigned_agent_id: null, status: 'needs_human', unread_count: 2 },
  };
}

function campaignProgress(company_id: number): LiveEvent {
  return {
    id: randomUUID(),
    event: 'campaign_progress',
    timestamp: new Date().toISOString(),
    company_id,
    data: {
      campaign_id: 3,
      status: 'started',
      total: 10,
      sent: 4,
      delivered: 2,
      read: 1,
      failed: 0,
    },
  };
}

/** As the services publish: customer events on `svc.events`, console events on `svc.console`. */
async function publish(...events: LiveEvent[]): Promise<void> {
  for (const event of events) {
    const exchange =
      event.event === 'conversation_updated' || event.event === 'campaign_progress'
        ? EXCHANGES.console
        : EXCHANGES.events;
    await publisher.publish(exchange, event.event, event, { messageId: event.id });
  }
}

const eventFrames = (stream: LiveStreamClient) =>
  stream.frames.filter((frame) => frame.event !== 'ready' && frame.event !== 'reset');
const isEvent = (frame: StreamFrame) => frame.event !== 'ready' && frame.event !== 'reset';
const eventIdsOf = (frames: StreamFrame[]) =>
  frames.map((frame) => (LiveEventSchema.parse(JSON.parse(frame.data)) as LiveEvent).id);

describe('the live stream', () => {
  test('when nobody is signed in, or the cookie names no session, then the stream is refused with 401 and no event', async () => {
    const anonymous = await open(stack.gateway.url, {});
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ status: 'error', code: 'not_signed_in' });

    const forged = await open(stack.gateway.url, { cookie: '__Host-sb_session=forged-secret' });
    expect(forged.status).toBe(401);
    expect(forged.frames).toEqual([]);
  });

  test('when events of two organizations are published, then each signed-in user gets only their own organization’s, in the order published, as text/event-stream with increasing ids', async () => {
    const a = await signedInOrganization();
    const b = await signedInOrganization();
    const streamA = await openReady(stack.gateway.url, { cookie: a.owner.cookie });
    const streamB = await openReady(stack.gateway.url, { cookie: b.owner.cookie });
    expect(streamA.contentType).toMatch(/^text\/event-stream/);
    expect(LiveControlDataSchema.parse(JSON.parse(streamA.frames[0]!.data))).toBeTruthy();

    const sentA = messageSent(a.company_id);
    const ofA = [
      sentA,
      statusUpdated(a.company_id, (sentA.data as { message_id: number }).message_id),
      conversationUpdated(a.company_id),
      campaignProgress(a.company_id),
    ];
    const ofB = [messageSent(b.company_id), conversationUpdated(b.company_id)];
    await publish(ofA[0]!, ofB[0]!, ofA[1]!, ofA[2]!, ofB[1]!, ofA[3]!);

    const framesA = await streamA.waitFor(isEvent, ofA.length);
    const framesB = await streamB.waitFor(isEvent, ofB.length);
    expect(eventIdsOf(framesA)).toEqual(ofA.map((event) => event.id));
    expect(framesA.map((frame) => frame.event)).toEqual(ofA.map((event) => event.event));
    expect(eventIdsOf(framesB)).toEqual(ofB.map((event) => event.id));
    const ids = framesA.map((frame) => Number(frame.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);

    // Nothing of B ever reaches A, however long A keeps listening.
    await publish(messageSent(b.company_id));
    await streamB.waitFor(isEvent, ofB.length + 1);
    const marker = messageSent(a.company_id);
    await publish(marker);
    await streamA.waitFor(isEvent, ofA.length + 1);
    for (const frame of eventFrames(streamA)) {
      expect(JSON.parse(frame.data)).toMatchObject({ company_id: a.company_id });
    }
  });

  test('when a message’s outcomes arrive in one batch message, then the stream shows each of them, in the order of the batch', async () => {
    const a = await signedInOrganization();
    const stream = await openReady(stack.gateway.url, { cookie: a.owner.cookie });
    const sent = messageSent(a.company_id);
    const messageId = (sent.data as { message_id: number }).message_id;
    const outcomes = [
      sent,
      statusUpdated(a.company_id, messageId),
      statusUpdated(a.company_id, messageId),
    ];
    const batchId = randomUUID();
    await publisher.publish(
      EXCHANGES.events,
      eventRoutingKey(sent as BrokerEvent),
      { id: batchId, events: outcomes },
      { messageId: batchId },
    );
    const frames = await stream.waitFor(isEvent, outcomes.length);
    expect(eventIdsOf(frames)).toEqual(outcomes.map((event) => event.id));
    expect(frames.map((frame) => JSON.parse(frame.data) as unknown)).toEqual(outcomes);
  });

  test('when a client reconnects with Last-Event-ID to another replica, then it gets exactly the events it missed, in order, then the live ones', async () => {
    const other = await startReplica();
    const a = await signedInOrganization();
    const first = await openReady(other.url, { cookie: a.owner.cookie });
    const seen = messageSent(a.company_id);
    await publish(seen);
    await first.waitFor(isEvent);
    const lastId = first.lastEventId()!;
    first.close();

    // A second tab stays connected, to know when the missed events have been logged.
    const watcher = await openReady(stack.gateway.url, { cookie: a.owner.cookie });
    const missed = [messageSent(a.company_id), campaignProgress(a.company_id)];
    await publish(...missed);
    await watcher.waitFor(isEvent, missed.length);

    const resumed = await open(stack.gateway.url, { cookie: a.owner.cookie, lastEventId: lastId });
    expect(resumed.status).toBe(200);
    await resumed.waitFor(isEvent, missed.length);
    const live = messageSent(a.company_id);
    await publish(live);
    const frames = await resumed.waitFor(isEvent, missed.length + 1);
    expect(eventIdsOf(frames)).toEqual([...missed, live].map((event) => event.id));
    expect(Number(frames[0]!.id)).toBeGreaterThan(Number(lastId));
  });

  test('when the session is signed out on one replica, then its stream on another ends and a reconnect is refused with 401', async () => {
    const other = await startReplica();
    const a = await signedInOrganization();
    const stream = await openReady(other.url, { cookie: a.owner.cookie });
    const signedOut = await callGateway(stack.gateway.url, 'POST', '/auth/sign-out', a.owner);
    expect(signedOut.status).toBe(200);
    await stream.ended;
    const again = await open(other.url, { cookie: a.owner.cookie });
    expect(again.status).toBe(401);
  });

  test('when a user opens more streams than allowed, then the next one answers 429 and closing one makes room', async () => {
    const a = await signedInOrganization();
    const opened = [];
    for (let i = 0; i < 3; i++)
      opened.push(await openReady(stack.gateway.url, { cookie: a.owner.cookie }));
    const refused = await open(stack.gateway.url, { cookie: a.owner.cookie });
    expect(refused.status).toBe(429);
    opened[0]!.close();
    await opened[0]!.ended;
    let admitted: LiveStreamClient | undefined;
    for (let attempt = 0; attempt < 50 && admitted?.status !== 200; attempt++) {
      admitted = await open(stack.gateway.url, { cookie: a.owner.cookie });
      if (admitted.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(admitted?.status).toBe(200);
  });

  test('when Last-Event-ID is not an id, then 422; when it was never given out, then a reset frame', async () => {
    const a = await signedInOrganization();
    const bad = await open(stack.gateway.url, { cookie: a.owner.cookie, lastEventId: 'abc' });
    expect(bad.status).toBe(422);
    const future = await openReady(stack.gateway.url, {
      cookie: a.owner.cookie,
      lastEventId: '999999999999',
    });
    expect(future.frames[0]!.event).toBe('reset');
  });

  test('when the gateway stops, then its open streams end at once rather than hold the shutdown', async () => {
    const other = await startReplica({ SHUTDOWN_TIMEOUT_MS: '600000' });
    replicas.splice(replicas.indexOf(other), 1);
    const a = await signedInOrganization();
    const stream = await openReady(other.url, { cookie: a.owner.cookie });
    await other.stop();
    await stream.ended;
  });

  test('when events flow and reconnects resume, then none of them is written to the database', async () => {
    const a = await signedInOrganization();
    const first = await openReady(stack.gateway.url, { cookie: a.owner.cookie });
    const events = Array.from({ length: 20 }, () => messageSent(a.company_id));
    await publish(...events);
    await first.waitFor(isEvent, events.length);
    first.close();

    const resumed = await openReady(stack.gateway.url, {
      cookie: a.owner.cookie,
      lastEventId: String(Number(first.frames[0]!.id)),
    });
    const frames = await resumed.waitFor(isEvent, events.length);
    expect(eventIdsOf(frames)).toEqual(events.map((event) => event.id));
    // What the gateway stored: its own records and the ids' counter, no copy of any event.
    const stored = await stack.gateway.db.db!.listCollections({}, { nameOnly: true }).toArray();
    for (const { name } of stored) {
      const found = await stack.gateway.db
        .collection(name)
        .countDocuments({ _id: { $in: events.map((event) => event.id) } as never });
      expect({ name, found }).toEqual({ name, found: 0 });
    }
  });

  test('when a client reconnects to a replica started after the events it missed, then it gets a reset frame and then the live events', async () => {
    const a = await signedInOrganization();
    const stream = await openReady(stack.gateway.url, { cookie: a.owner.cookie });
    await publish(messageSent(a.company_id), messageSent(a.company_id));
    await stream.waitFor(isEvent, 2);
    const lastId = stream.lastEventId()!;
    stream.close();

    const late = await startReplica();
    const resumed = await openReady(late.url, {
      cookie: a.owner.cookie,
      lastEventId: String(Number(lastId) - 1),
    });
    expect(resumed.frames[0]!.event).toBe('reset');
    const live = messageSent(a.company_id);
    await publish(live);
    const frames = await resumed.waitFor(isEvent);
    expect(eventIdsOf(frames)).toEqual([live.id]);
  });

  test('when the events after a Last-Event-ID are no longer kept, then the reconnect gets a reset frame and then the live events', async () => {
    // A replica keeping events 1 s: a reconnect to it soon finds them gone.
    const short = await startReplica({ LIVE_EVENT_RETENTION_MS: '1000' });
    const a = await signedInOrganization();
    const stream = await openReady(short.url, { cookie: a.owner.cookie });
    await publish(messageSent(a.company_id));
    await stream.waitFor(isEvent);
    const kept = stream.lastEventId()!;
    const before = String(Number(kept) - 1);
    stream.close();

    let answer: LiveStreamClient | undefined;
    for (let attempt = 0; attempt < 100; attempt++) {
      answer = await openReady(short.url, { cookie: a.owner.cookie, lastEventId: before });
      if (answer.frames[0]!.event === 'reset') break;
      answer.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(answer!.frames[0]!.event).toBe('reset');
    const live = messageSent(a.company_id);
    await publish(live);
    const frames = await answer!.waitFor(isEvent);
    expect(eventIdsOf(frames)).toEqual([live.id]);
  });
});
