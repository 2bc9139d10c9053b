// Nothing stays held after a crash: messaging is killed with SIGKILL while three API sends are at
// the provider. The one the provider accepted ends sent once (its `sent` status names it); the two
// the provider never answered, with and without an Idempotency-Key, end failed with
// `message_failed` and their quota places back; none reaches the provider twice.
import { connect, type ChannelModel } from 'amqplib';
import {
  BrokerEventMessageSchema,
  brokerEventsOf,
  EXCHANGES,
  INTERNAL_SECRET_HEADER,
  MESSAGING_INTERNAL_PATHS,
  type BrokerEvent,
} from '@switchboard/contracts';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';

jest.setTimeout(5 * 60_000);

// A send left pending is resolved two leases after it began: 10 s here, well after the accepted
// send's `sent` status (3 s of provider latency) is back.
const LEASE_MS = 5_000;
const LATENCY_MS = 3_000;

let e2e: E2eSystem;
let amqp: ChannelModel;
const events: BrokerEvent[] = [];

beforeAll(async () => {
  e2e = await startE2eSystem('e2esendcrash', {
    SEND_LEASE_MS: String(LEASE_MS),
    SEND_RECOVERY_INTERVAL_MS: '500',
    SIM_STATUS_DELAYS_MS: '100',
  });
  amqp = await connect(e2e.amqpUrl);
  const tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.events, '#');
  await tap.consume(queue, (message) => {
    if (!message) return;
    // One event, or a batch of the events one write stored.
    const parsed = BrokerEventMessageSchema.safeParse(JSON.parse(message.content.toString()));
    if (parsed.success) events.push(...brokerEventsOf(parsed.data));
    tap.ack(message);
  });
});

afterAll(async () => {
  await amqp?.close();
  await e2e?.stop();
});

const sim = async (path: string, body?: unknown) =>
  jsonBody(
    await fetch(`${e2e.simulator}/sim${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
const providerGot = async (phone: string): Promise<number> =>
  ((await sim(`/sent?to=${phone}&include_rejected=true`)).sent as unknown[]).length;

const eventFor = (name: string, phone: string) =>
  events.filter(
    (event) => event.event === name && (event.data as { phone: string }).phone === phone,
  );

/** A send as a customer makes it, the answer not awaited. */
function send(token: string, phone: string, key?: string) {
  return fetch(`${e2e.gateway}/api/svc/sendMessageToPhoneNumber`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: JSON.stringify({ phone, message: `Hello ${phone}` }),
  });
}

test('when messaging is killed with SIGKILL while sends are at the provider, then the accepted one ends sent once and the others fail with message_failed and give their places back, none sent twice', async () => {
  const org = await e2e.createOrganization('Send Crash Co', 'free');
  const { token } = org;
  const client = e2e.api(token);
  const company_id = org.organization.company_id;
  // 97 of the free plan's 100 messages taken: the three sends take the rest.
  const reserved = await fetch(
    `${e2e.system.urls.messaging}${MESSAGING_INTERNAL_PATHS.reserveQuota}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_SECRET_HEADER]: e2e.internalSecret },
      body: JSON.stringify({
        company_id,
        plan: 'free',
        plan_started_at: org.organization.plan_started_at,
        count: 97,
      }),
    },
  );
  expect(reserved.status).toBe(200);

  const [accepted, unanswered, keyed] = ['393480000101', '393480000102', '393480000103'];
  const key = 'crash-order-1';
  const phone_number_id = org.channel.phone_number_id;
  await sim('/faults', { phone_number_id, to: accepted, latency_ms: LATENCY_MS });
  for (const to of [unanswered, keyed]) {
    await sim('/faults', { phone_number_id, to, latency_ms: LATENCY_MS, drop_connection: true });
  }

  const answers = [send(token, accepted), send(token, unanswered), send(token, keyed, key)];
  await until(
    async () =>
      (await providerGot(accepted)) +
        (await providerGot(unanswered)) +
        (await providerGot(keyed)) ===
      3
        ? true
        : undefined,
    'the three sends at the provider',
  );
  await e2e.system.killService('messaging');
  for (const answer of await Promise.all(answers))
    expect(answer.status).toBeGreaterThanOrEqual(500);
  await e2e.system.startService('messaging');

  const sent = await until(
    async () => eventFor('message_sent', accepted)[0],
    'the accepted send adopted from its status',
    60_000,
  );
  await until(
    async () =>
      eventFor('message_failed', unanswered).length > 0 &&
      eventFor('message_failed', keyed).length > 0
        ? true
        : undefined,
    'the two unanswered sends failed by the recovery job',
    60_000,
  );
  expect(eventFor('message_failed', unanswered)[0]!.data).toMatchObject({
    error: expect.stringMatching(/interrupted/),
  });
  const sentId = (sent.data as { message_id: number }).message_id;
  const status = await client.get('getMessageStatus', { message_id: sentId });
  expect(status.body).toMatchObject({
    message_status: expect.stringMatching(/sent|delivered|read/),
  });

  // The caller of the keyed send comes back: it learns the outcome, nothing is sent again.
  const retried = await until(async () => {
    const answer = await send(token, keyed, key);
    return answer.status === 503 ? undefined : answer;
  }, 'messaging back behind the gateway');
  expect(retried.status).toBe(502);
  expect(retried.headers.get('idempotent-replayed')).toBe('true');

  // 97 + the one sent: two places are free again, and only two.
  const later = [];
  for (const phone of ['393480000104', '393480000105', '393480000106']) {
    later.push((await send(token, phone)).status);
  }
  expect(later).toEqual([200, 200, 429]);

  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect({
    accepted: await providerGot(accepted),
    unanswered: await providerGot(unanswered),
    keyed: await providerGot(keyed),
    failedEvents:
      eventFor('message_failed', unanswered).length + eventFor('message_failed', keyed).length,
    sentEvents: eventFor('message_sent', accepted).length,
  }).toEqual({ accepted: 1, unanswered: 1, keyed: 1, failedEvents: 2, sentEvents: 1 });
});
