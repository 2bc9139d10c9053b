// A three-node RabbitMQ cluster (scripts/infra.sh cluster), every service given all three nodes
// in AMQP_URL. Under steady API sends with a webhook subscribed, the node leading
// `webhooks.deliveries` is killed: every send reaches the provider exactly once, every
// `message_sent` and final `read` status is delivered to the customer's endpoint. The pause and
// the throughput before and after are printed (docs/benchmarks.md).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { INTERNAL_SECRET_HEADER, QUEUES, orgHeaders } from '@switchboard/contracts';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { jsonBody, randomSecret } from '../support/test-infra';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';

jest.setTimeout(4 * 60_000);

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const INFRA = path.join(ROOT, 'scripts/infra.sh');
const NODES = [1, 2, 3].map((i) => ({ i, name: `sb_cluster_${i}@localhost`, port: 5700 + i }));
const SEND_FOR_MS = 24_000;
const KILL_AT_MS = 8_000;
const SENDS_PER_SECOND = 4;

const vhost = `t_failover_${randomSecret().slice(0, 8)}`;
let e2e: E2eSystem | undefined;
let receiver: Receiver | undefined;

const infra = (...args: string[]) => run('bash', [INFRA, 'cluster', ...args], { cwd: ROOT });
const ctl = (node: string, ...args: string[]) => run('rabbitmqctl', ['-n', node, ...args]);

beforeAll(async () => {
  // No skipping: a machine that cannot start the cluster fails here.
  await infra('up');
  await ctl(NODES[0]!.name, 'add_vhost', vhost);
  await ctl(NODES[0]!.name, 'set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*');
  const urls = NODES.map((node) => `amqp://127.0.0.1:${node.port}/${vhost}`).join(',');
  e2e = await startE2eSystem('e2efailover', {
    AMQP_URL: urls,
    ALLOW_PRIVATE_URLS: 'true',
    // `broker connected` lines time each service's reconnection.
    LOG_LEVEL: 'info',
  });
}, 180_000);

afterAll(async () => {
  await e2e?.stop().catch(() => undefined);
  await receiver?.close();
  await infra('down').catch(() => undefined);
}, 120_000);

/** The node that leads `queue` now, from a node that is still running. */
async function leaderOf(queue: string, askNode: string): Promise<string> {
  const { stdout } = await ctl(askNode, 'list_queues', '-p', vhost, 'name', 'leader', '-q');
  const row = stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find(([name]) => name === queue);
  if (!row?.[1]) throw new Error(`no leader for ${queue} in:\n${stdout}`);
  return row[1];
}

interface Delivery {
  event: string;
  messageId: number;
  status?: string;
  at: number;
}

/** Per service, from the kill to its broker client's next `broker connected` line (ms). */
function brokerOutages(output: string[], killedAt: number): Record<string, number> {
  const outages: Record<string, number> = {};
  for (const line of output) {
    const match = /^([a-z-]+): (\{.*\})$/.exec(line);
    if (!match) continue;
    let entry: { msg?: string; time?: string };
    try {
      entry = JSON.parse(match[2]!) as typeof entry;
    } catch {
      continue;
    }
    const time = Date.parse(entry.time ?? '');
    if (entry.msg === 'broker connected' && time > killedAt && !(match[1]! in outages)) {
      outages[match[1]!] = time - killedAt;
    }
  }
  return outages;
}

const rate = (count: number, fromMs: number, toMs: number) =>
  Math.round((count / Math.max(toMs - fromMs, 1)) * 1000 * 10) / 10;

test('when the node leading webhooks.deliveries is killed under steady sends, then nothing is lost, nothing reaches the provider twice and every webhook is delivered', async () => {
  const system = e2e!;
  const org = await system.createOrganization('Failover Co', 'premium');
  const companyId = org.organization.company_id;
  receiver = await startReceiver(() => ({ status: 200 }));
  const registered = await fetch(`${system.system.urls.webhooks}/developer/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [INTERNAL_SECRET_HEADER]: system.internalSecret,
      ...orgHeaders({
        company_id: companyId,
        plan: 'premium',
        plan_started_at: new Date(org.organization.plan_started_at),
      }),
    },
    body: JSON.stringify({
      name: 'failover',
      url: receiver.url,
      events: ['message_sent', 'message_status_updated'],
    }),
  });
  expect(registered.status).toBe(201);
  receiver.trust((await jsonBody(registered)).webhook.secret as string);

  // Steady sends, one phone each, while a node is killed a third of the way in.
  const started = Date.now();
  const answers: Array<Promise<{ status: number; messageId?: number; at?: number }>> = [];
  let killedAt = 0;
  let killedNode = '';
  const killing = (async () => {
    await new Promise((resolve) => setTimeout(resolve, KILL_AT_MS));
    killedNode = await leaderOf(QUEUES.webhooksDeliveries, NODES[0]!.name);
    const victim = NODES.find((node) => node.name === killedNode)!;
    killedAt = Date.now();
    await infra('stop-node', String(victim.i));
  })();
  for (let n = 0; Date.now() - started < SEND_FOR_MS; n++) {
    const phone = `39349${String(n).padStart(7, '0')}`;
    answers.push(
      fetch(`${system.gateway}/api/svc/sendMessageToPhoneNumber`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${org.token}` },
        body: JSON.stringify({ phone, message: `failover ${n}` }),
      }).then(async (response) => {
        const body = await jsonBody(response);
        return {
          status: response.status,
          messageId: body.message_id as number | undefined,
          ...(response.status === 200 ? {} : { body, at: Date.now() - killedAt }),
        };
      }),
    );
    const due = started + ((n + 1) * 1000) / SENDS_PER_SECOND;
    await new Promise((resolve) => setTimeout(resolve, Math.max(due - Date.now(), 0)));
  }
  const sendsEnded = Date.now();
  await killing;
  const settled = await Promise.all(answers);
  const refused = settled.filter((answer) => answer.status !== 200);
  if (refused.length > 0) {
    const notable = system.output.filter((line) => !/"level":30/.test(line) || /broker/.test(line));
    process.stderr.write(`${JSON.stringify({ killedNode, killedAt })}\n${notable.join('\n')}\n`);
  }
  expect(refused).toEqual([]);
  const messageIds = settled.map((answer) => answer.messageId!);

  const deliveries = (): Delivery[] =>
    receiver!.requests.map((request) => {
      const body = JSON.parse(request.body.toString('utf8')) as {
        event: string;
        data: { message_id: number; status?: string };
      };
      return {
        event: body.event,
        messageId: body.data.message_id,
        status: body.data.status,
        at: request.at,
      };
    });
  const delivered = (event: string, status?: string) =>
    new Set(
      deliveries()
        .filter((d) => d.event === event && (status === undefined || d.status === status))
        .map((d) => d.messageId),
    );
  const missing = () => ({
    message_sent: messageIds.filter((id) => !delivered('message_sent').has(id)),
    read: messageIds.filter((id) => !delivered('message_status_updated', 'read').has(id)),
  });
  try {
    await until(
      async () => {
        const left = missing();
        return left.message_sent.length + left.read.length === 0 ? true : undefined;
      },
      'every message_sent and read status delivered',
      90_000,
    );
  } catch (error) {
    const left = missing();
    process.stderr.write(
      `${JSON.stringify({ sends: messageIds.length, missing: left, killedNode, killedAt })}\n` +
        `${system.output.slice(-80).join('\n')}\n`,
    );
    throw error;
  }
  expect(receiver.requests.every((request) => request.verified)).toBe(true);

  // The provider got each send exactly once.
  const sent = (await jsonBody(
    await fetch(
      `${system.simulator}/sim/sent?phone_number_id=${org.channel.phone_number_id}&include_rejected=true`,
    ),
  )) as { sent: Array<{ kind: string; wa_id?: string }> };
  const perPhone = new Map<string, number>();
  for (const record of sent.sent.filter((r) => r.kind === 'message')) {
    perPhone.set(record.wa_id!, (perPhone.get(record.wa_id!) ?? 0) + 1);
  }
  expect(perPhone.size).toBe(messageIds.length);
  expect([...perPhone.values()].filter((count) => count !== 1)).toEqual([]);

  // Figures: webhook requests per second before the kill and after the pause, the longest
  // silence at the receiver after the kill, and how long each service was without a broker.
  const at = receiver.requests.map((request) => request.at).sort((a, b) => a - b);
  let pauseMs = 0;
  let resumedAt = killedAt;
  // The failover window: the 20 s after the kill (later gaps are the backlog draining).
  const fromKill = [killedAt, ...at.filter((time) => time >= killedAt && time < killedAt + 20_000)];
  for (let k = 1; k < fromKill.length; k++) {
    const gap = fromKill[k]! - fromKill[k - 1]!;
    if (gap > pauseMs) [pauseMs, resumedAt] = [gap, fromKill[k]!];
  }
  const beforeFrom = started + 3_000;
  const before = at.filter((time) => time >= beforeFrom && time < killedAt).length;
  const after = at.filter((time) => time >= resumedAt && time < resumedAt + 10_000).length;
  const perSecond = new Map<number, number>();
  for (const time of at) {
    const second = Math.floor((time - killedAt) / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  const webhookIds = receiver.requests.map((request) => request.headers['x-webhook-id']);
  process.stdout.write(
    `${JSON.stringify({
      failover: {
        killed: killedNode,
        sends: messageIds.length,
        sends_per_second: SENDS_PER_SECOND,
        webhook_pause_ms: pauseMs,
        webhooks_per_s_before: rate(before, beforeFrom, killedAt),
        webhooks_per_s_after_pause_10s: rate(after, resumedAt, resumedAt + 10_000),
        webhook_requests: receiver.requests.length,
        webhook_duplicates: webhookIds.length - new Set(webhookIds).size,
        last_webhook_after_last_send_ms: at[at.length - 1]! - sendsEnded,
        broker_outage_ms: brokerOutages(system.output, killedAt),
        per_second_from_kill: Object.fromEntries(perSecond),
      },
    })}\n`,
  );
  expect(killedAt).toBeGreaterThan(0);
});
