// The webhooks process is killed with SIGKILL in the middle of a burst and started again: every
// event accepted before (and during) the crash still reaches every subscribed receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import {
  EXCHANGES,
  INTERNAL_SECRET_HEADER,
  orgHeaders,
  type BrokerEvent,
} from '@switchboard/contracts';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  freePortBlock,
  isolatedAmqpUrl,
  jsonBody,
  randomSecret,
  uniquePrefix,
} from '../support/test-infra';
import { brokerEvent } from '../../services/webhooks/test/support/events';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '..', '..');
const prefix = uniquePrefix('e2ewhcrash');
const internalSecret = randomSecret();
const companyId = 77_001;
let broker: Awaited<ReturnType<typeof isolatedAmqpUrl>>;
let port: number;
let child: ChildProcess | undefined;
let connection: ChannelModel;
let channel: ConfirmChannel;
const receivers: Receiver[] = [];
const output: string[] = [];

async function startWebhooks(): Promise<ChildProcess> {
  const started = spawn(process.execPath, [path.join(ROOT, 'services/webhooks/dist/main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      MONGODB_URL,
      MONGODB_DB_PREFIX: prefix,
      AMQP_URL: broker.url,
      INTERNAL_API_SECRET: internalSecret,
      LOG_LEVEL: 'warn',
      ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '0.5,1,1',
      WEBHOOK_TIMEOUT_MS: '2000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  started.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (started.exitCode !== null) throw new Error(`webhooks exited: ${output.join('')}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (ready?.ok) return started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('webhooks did not become ready');
}

function killHard(process: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    process.once('exit', () => resolve());
    process.kill('SIGKILL');
  });
}

async function publish(event: BrokerEvent) {
  channel.publish(EXCHANGES.events, event.event, Buffer.from(JSON.stringify(event)), {
    persistent: true,
    messageId: event.id,
  });
}

beforeAll(async () => {
  broker = await isolatedAmqpUrl('e2ewhcrash');
  port = await freePortBlock(1);
  child = await startWebhooks();
  connection = await connect(broker.url);
  channel = await connection.createConfirmChannel();
});

afterAll(async () => {
  if (child && child.exitCode === null) await killHard(child);
  await connection?.close().catch(() => undefined);
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await dropDatabasesWithPrefix(prefix);
  await broker?.drop();
});

test('when the webhooks process is killed with SIGKILL mid-burst and restarted, then every event reaches every receiver, duplicates with the same X-Webhook-Id', async () => {
  for (let i = 0; i < 2; i++) {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 10 }));
    receivers.push(receiver);
    const response = await fetch(`http://127.0.0.1:${port}/developer/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [INTERNAL_SECRET_HEADER]: internalSecret,
        ...orgHeaders({ company_id: companyId, plan: 'standard', plan_started_at: new Date() }),
      },
      body: JSON.stringify({ name: `r${i}`, url: receiver.url, events: ['message_received'] }),
    });
    receiver.trust((await jsonBody(response)).webhook.secret as string);
  }
  const events = Array.from({ length: 300 }, () => brokerEvent('message_received', companyId));

  for (const event of events.slice(0, 200)) await publish(event);
  await channel.waitForConfirms();
  const first = receivers[0]!;
  while (first.requests.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));

  await killHard(child!);
  const seenAtCrash = first.requests.length;
  // Accepted while the process is down: the broker keeps them.
  for (const event of events.slice(200)) await publish(event);
  await channel.waitForConfirms();
  child = await startWebhooks();

  const expected = new Set(events.map((event) => event.id));
  for (const receiver of receivers) {
    const deadline = Date.now() + 120_000;
    const ids = () => new Set(receiver.requests.map((r) => r.headers['x-webhook-id'] as string));
    while (ids().size < expected.size && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ids()).toEqual(expected);
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    // A duplicate is the same delivery again: same id, same bytes.
    const bodies = new Map<string, string>();
    for (const request of receiver.requests) {
      const id = request.headers['x-webhook-id'] as string;
      const body = request.body.toString('utf8');
      expect(bodies.get(id) ?? body).toBe(body);
      bodies.set(id, body);
    }
  }
  expect(seenAtCrash).toBeLessThan(events.length);
});
