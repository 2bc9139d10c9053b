// `npm start`'s supervision under load: sends (with Idempotency-Keys) and contact writes stream
// through the gateway while each service in turn is killed with SIGKILL from outside, as a crash
// would. Every kill is logged and followed by a restart, the gateway answers again within 5 s, and
// nothing accepted is lost or done twice.
import { createServer, type Socket } from 'node:net';
import mongoose from 'mongoose';
import {
  MessageStatusResponseSchema,
  SendMessageResponseSchema,
  WebhookResponseSchema,
  type CreateOrganizationResponse,
} from '@switchboard/contracts';
import type { ServiceProcessName } from '../../scripts/launcher';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { MONGODB_URL, jsonBody } from '../support/test-infra';

jest.setTimeout(240_000);

const KILLED: ServiceProcessName[] = [
  'messaging',
  'contacts',
  'campaigns',
  'webhooks',
  'inbound',
  'gateway',
];
const MAX_UNAVAILABLE_MS = 5_000;

let e2e: E2eSystem;
let receiver: Receiver;
let org: CreateOrganizationResponse;

beforeAll(async () => {
  receiver = await startReceiver();
  e2e = await startE2eSystem(
    'e2esupervise',
    {
      SIM_STATUS_DELAYS_MS: '100,100',
      // Meta retries a webhook it could not deliver for hours; the simulator's default gives up
      // after 5 s, shorter than a restart may take on a busy machine.
      SIM_WEBHOOK_RETRY_DELAYS_MS: '250,1000,2000,4000,8000',
      // A send cut off by a kill holds its Idempotency-Key this long before a retry may take it over.
      SEND_LEASE_MS: '10000',
      ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '0.5,1,2',
    },
    { supervise: true },
  );
  org = await e2e.createOrganization('Supervised Co', 'premium');
  await fetch(`${e2e.simulator}/sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      phone_number_id: org.channel.phone_number_id,
      statuses: ['sent', 'delivered'],
    }),
  });
  const hook = await fetch(`${e2e.gateway}/developer/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token: org.token,
      name: 'Supervised',
      url: receiver.url,
      events: ['message_sent'],
    }),
  });
  expect(hook.status).toBe(201);
  receiver.trust(WebhookResponseSchema.parse(await jsonBody(hook)).webhook.secret);
});

afterAll(async () => {
  await e2e?.stop();
  await receiver?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number | 'no answer';
  body?: Record<string, unknown>;
  replayed?: boolean;
}

async function call(path: string, init: RequestInit = {}): Promise<Answer> {
  try {
    const response = await fetch(`${e2e.gateway}${path}`, {
      ...init,
      signal: init.signal ?? AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : undefined,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  } catch {
    return { status: 'no answer' };
  }
}

const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Worth asking again: the gateway or the owner is down, or a cut-off send still holds its key. */
const retryable = (answer: Answer) =>
  answer.status === 'no answer' || answer.status >= 500 || answer.status === 409;

interface Send {
  key: string;
  phone: string;
  message: string;
  attempts: number;
  accepted?: { message_id: number; message_wamid: string };
  /** The body of the first 200 answer, which every repeat must give again. */
  answer?: Record<string, unknown>;
  refused?: Answer;
}

/** One send, asked again with the same Idempotency-Key until it is answered for good. */
async function send(index: number): Promise<Send> {
  const item: Send = {
    key: `supervised-${index}`,
    phone: `39340${String(index).padStart(7, '0')}`,
    message: `Hello number ${index}`,
    attempts: 0,
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    item.attempts += 1;
    const answer = await postJson(
      '/api/svc/sendMessageToPhoneNumber',
      { token: org.token, phone: item.phone, message: item.message },
      { 'idempotency-key': item.key },
    );
    if (answer.status === 200) {
      const { message_id, message_wamid } = SendMessageResponseSchema.parse(answer.body);
      item.accepted = { message_id, message_wamid };
      item.answer = answer.body;
      return item;
    }
    if (!retryable(answer) || Date.now() > deadline) {
      item.refused = answer;
      return item;
    }
    await sleep(200);
  }
}

/** makeContact creates or updates by phone, so asking again after no answer is safe. */
async function writeContact(index: number): Promise<{ phone: string; ok: boolean }> {
  const phone = `39341${String(index).padStart(7, '0')}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await postJson('/api/svc/makeContact', {
      token: org.token,
      name: `Guest ${index}`,
      phone,
    });
    if (typeof answer.status === 'number' && answer.status < 300) return { phone, ok: true };
    if (!retryable(answer) || Date.now() > deadline) return { phone, ok: false };
    await sleep(200);
  }
}

/** A cheap call the gateway passes to each owner (the gateway's own for itself). */
function probePath(service: ServiceProcessName): string {
  const token = encodeURIComponent(org.token);
  switch (service) {
    case 'messaging':
      return `/api/svc/getMessages?token=${token}&limit=1`;
    case 'contacts':
      return `/api/svc/getContacts?token=${token}&limit=1`;
    case 'campaigns':
      return `/api/svc/getCampaigns?token=${token}`;
    case 'webhooks':
      return `/developer/webhooks?token=${token}`;
    case 'inbound':
      // A verification with a wrong token: inbound refuses it, and only inbound can.
      return `/webhook/svc/receive/not-a-token?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1`;
    default:
      return `/api/svc/me?token=${token}`;
  }
}

const answered = (answer: Answer) => typeof answer.status === 'number' && answer.status < 500;

interface Outage {
  service: ServiceProcessName;
  /** From the kill to the gateway's first answer from the restarted owner. */
  unavailableMs: number;
  failedProbes: number;
  statuses: string;
}

/** Kills `service` with SIGKILL from outside the launcher and measures until it answers again. */
async function killAndMeasure(service: ServiceProcessName): Promise<Outage> {
  const path = probePath(service);
  await until(async () => (answered(await call(path)) ? true : undefined), `${service} answering`);
  const pid = e2e.system.pidOf(service);
  if (pid === undefined) throw new Error(`${service} is not running`);
  const killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  const seen = new Map<string, number>();
  let failedProbes = 0;
  for (;;) {
    const answer = await call(path, { signal: AbortSignal.timeout(2_000) });
    if (answered(answer) && e2e.system.pidOf(service) !== pid) {
      return {
        service,
        unavailableMs: Date.now() - killedAt,
        failedProbes,
        statuses: [...seen].map(([status, n]) => `${status}×${n}`).join(' '),
      };
    }
    if (!answered(answer)) {
      failedProbes += 1;
      seen.set(String(answer.status), (seen.get(String(answer.status)) ?? 0) + 1);
    }
    if (Date.now() - killedAt > 60_000) throw new Error(`${service} did not come back`);
    await sleep(50);
  }
}

interface SupervisorLine {
  event: string;
  reason?: string;
  ready_after_ms?: number;
  signal?: string | null;
  exit_code?: number | null;
}

function supervisorLines(service: ServiceProcessName): SupervisorLine[] {
  return e2e.output
    .filter((line) => line.startsWith(`${service}: {`))
    .map(
      (line) =>
        JSON.parse(line.slice(service.length + 2)) as SupervisorLine & { supervisor?: boolean },
    )
    .filter((line) => line.supervisor === true);
}

test('when each service is killed with SIGKILL under load, then each is logged and restarted, the gateway answers again within 5 s, and no send or contact is lost or doubled', async () => {
  const sends: Promise<Send>[] = [];
  const contacts: Promise<{ phone: string; ok: boolean }>[] = [];
  let loading = true;
  let nextSend = 0;
  let nextContact = 0;
  // Two senders and one contact writer, each a request at a time with a short pause.
  const senders = [0, 1].map(async () => {
    while (loading) {
      const item = send(nextSend++);
      sends.push(item);
      await item;
      await sleep(100);
    }
  });
  const writer = (async () => {
    while (loading) {
      const item = writeContact(nextContact++);
      contacts.push(item);
      await item;
      await sleep(150);
    }
  })();

  const outages: Outage[] = [];
  try {
    await sleep(2_000);
    for (const service of KILLED) {
      outages.push(await killAndMeasure(service));
      await sleep(2_000);
    }
  } finally {
    loading = false;
    await Promise.all([...senders, writer]);
  }
  const settled = await Promise.all(sends);
  const written = await Promise.all(contacts);

  // The figures, for the record.
  process.stdout.write(
    [
      `supervised restarts under load: ${settled.length} sends, ${written.length} contact writes`,
      ...outages.map(
        (o) =>
          `  ${o.service.padEnd(10)} unavailable ${String(o.unavailableMs).padStart(5)} ms, restarted process ready after ${supervisorLines(o.service).find((line) => line.event === 'restarted')?.ready_after_ms} ms (${o.failedProbes} failed probes: ${o.statuses})`,
      ),
      `  sends answered only after a retry: ${settled.filter((s) => s.attempts > 1).length}`,
      '',
    ].join('\n'),
  );

  // Every kill is logged with its signal, then followed by a restart.
  for (const service of KILLED) {
    const lines = supervisorLines(service);
    expect(lines.map((line) => line.event)).toEqual(['exited', 'restarted']);
    expect(lines[0]).toMatchObject({ signal: 'SIGKILL', exit_code: null });
  }

  // Every send was answered for good: accepted, never refused.
  expect(settled.filter((s) => s.refused).map((s) => [s.key, s.refused])).toEqual([]);
  const accepted = settled.filter((s) => s.accepted);

  // Each accepted send reached the provider exactly once.
  const provider = await jsonBody(
    await fetch(`${e2e.simulator}/sim/sent?phone_number_id=${org.channel.phone_number_id}`),
  );
  const timesSent = new Map<string, number>();
  for (const record of provider.sent as { wa_id: string }[]) {
    timesSent.set(record.wa_id, (timesSent.get(record.wa_id) ?? 0) + 1);
  }
  expect([...timesSent].filter(([, n]) => n !== 1)).toEqual([]);
  expect(new Set(timesSent.keys())).toEqual(new Set(accepted.map((s) => s.phone)));

  // Each has its message_sent webhook, and its delivered status came back through inbound.
  const notified = () =>
    new Set(
      receiver.requests
        .filter((request) => request.headers['x-webhook-event'] === 'message_sent')
        .map((request) => JSON.parse(request.body.toString()).data.message_id as number),
    );
  await until(
    async () => (accepted.every((s) => notified().has(s.accepted!.message_id)) ? true : undefined),
    'a message_sent webhook for every accepted send',
    60_000,
  );
  const client = e2e.api(org.token);
  for (const item of accepted) {
    const status = await until(async () => {
      const answer = await client.get('getMessageStatus', {
        message_id: item.accepted!.message_id,
      });
      const parsed = MessageStatusResponseSchema.parse(answer.body);
      return parsed.status_times.delivered ? parsed : undefined;
    }, `message ${item.accepted!.message_id} delivered`);
    expect(status.message_wamid).toBe(item.accepted!.message_wamid);
  }

  // The same Idempotency-Key gets the same answer, and sends nothing more.
  for (const item of accepted) {
    const again = await postJson(
      '/api/svc/sendMessageToPhoneNumber',
      { token: org.token, phone: item.phone, message: item.message },
      { 'idempotency-key': item.key },
    );
    expect({ status: again.status, replayed: again.replayed, body: again.body }).toEqual({
      status: 200,
      replayed: true,
      body: item.answer,
    });
  }
  const after = await jsonBody(
    await fetch(`${e2e.simulator}/sim/sent?phone_number_id=${org.channel.phone_number_id}`),
  );
  expect(after.sent).toHaveLength(accepted.length);

  // Every contact write landed once.
  expect(written.filter((c) => !c.ok)).toEqual([]);
  const connection = await mongoose.createConnection(MONGODB_URL).asPromise();
  try {
    const stored = await connection
      .useDb(`${e2e.dbPrefix}contacts`)
      .collection('contacts')
      .find({ company_id: org.organization.company_id }, { projection: { phone: 1 } })
      .toArray();
    const perPhone = new Map<string, number>();
    // Sends make contacts of their recipients too: only the writer's phones are counted here.
    for (const doc of stored.filter((d) => String(d.phone).startsWith('39341'))) {
      perPhone.set(doc.phone, (perPhone.get(doc.phone) ?? 0) + 1);
    }
    expect([...perPhone].filter(([, n]) => n !== 1)).toEqual([]);
    expect(new Set(perPhone.keys())).toEqual(new Set(written.map((c) => c.phone)));
  } finally {
    await connection.close();
  }

  // Each outage, from the kill to the gateway's first answer from the restarted process.
  for (const outage of outages) expect(outage.unavailableMs).toBeLessThan(MAX_UNAVAILABLE_MS);
});

test('when a restarted process keeps failing to start, then after 5 exits within a minute the launcher gives up on it and says why, and the other processes keep serving', async () => {
  const service: ServiceProcessName = 'campaigns';
  // Started by hand: a fresh restart policy, whatever the test above did to it.
  await e2e.system.stopService(service);
  await e2e.system.startService(service);
  const linesBefore = supervisorLines(service).length;

  // Its port taken by another program: every restart fails to listen and exits 1.
  const pid = e2e.system.pidOf(service)!;
  process.kill(pid, 'SIGKILL');
  // Taken between the exit (the launcher has seen it) and the restarted process's listen.
  await until(async () => (e2e.system.pidOf(service) !== pid ? true : undefined), 'the exit');
  // Holds whatever connects (probes of the port) without answering, as a stray program might.
  const held = new Set<Socket>();
  const squatter = createServer((socket) => held.add(socket));
  await new Promise<void>((resolve, reject) => {
    squatter.once('error', reject);
    squatter.listen(e2e.system.ports[service], '127.0.0.1', resolve);
  });
  try {
    const lines = await until(
      async () => {
        const now = supervisorLines(service).slice(linesBefore);
        return now.some((line) => line.event === 'gave_up') ? now : undefined;
      },
      `the launcher to give up on ${service}`,
      90_000,
    );
    expect(lines.map((line) => [line.event, line.signal ?? line.exit_code])).toEqual([
      ['exited', 'SIGKILL'],
      ['exited', 1],
      ['exited', 1],
      ['exited', 1],
      ['gave_up', 1],
    ]);
    expect(lines[4]).toMatchObject({ reason: '5 exits within 60 s' });
    expect(e2e.system.pidOf(service)).toBeUndefined();
    // Given up on, not restarted later.
    await sleep(2_000);
    expect(e2e.system.pidOf(service)).toBeUndefined();
    expect(answered(await call(probePath('messaging')))).toBe(true);
    expect(answered(await call(probePath('contacts')))).toBe(true);
  } finally {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => squatter.close(resolve));
  }
});
