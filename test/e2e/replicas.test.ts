// Two replicas of every service on one database and broker, each service reached through a
// balancer (a Kubernetes Service's stand-in). A scheduled campaign, a flow and webhook retries
// run while one replica of each service is killed with SIGKILL: for the services with periodic
// work, the replica holding its leases. Nothing is done twice (the provider receives each send
// once, each webhook is attempted once per step of its schedule), nothing is left undone (the
// campaign completes, every webhook is delivered, no outbox keeps an event), each periodic job
// ran on one replica at a time, and the survivor took the killed replica's jobs over.
import mongoose, { type Connection } from 'mongoose';
import {
  CampaignResponseSchema,
  INTERNAL_SECRET_HEADER,
  orgHeaders,
  type CampaignView,
  type CreateOrganizationResponse,
} from '@switchboard/contracts';
import {
  LEASE_COLLECTION,
  LEASE_TAKEOVER_BOUND_MS,
  SHARD_KEYS,
  shardKeyViolations,
  type IndexDefinition,
} from '@switchboard/service-kit';
import { orderFlow } from '../../services/campaigns/test/support/flow-fixtures';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import { until } from '../support/e2e-system';
import {
  REPLICATED,
  startReplicatedSystem,
  type ReplicatedSystem,
  type ServiceName,
} from '../support/replicated-system';
import { MONGODB_URL, jsonBody, storedContacts } from '../support/test-infra';

jest.setTimeout(15 * 60_000);

const RECIPIENTS = 300;
const JOB_EVERY_MS = 1_000;
/** The jobs that run often enough here to be watched, per service. */
const WATCHED_JOBS: Partial<Record<ServiceName, string[]>> = {
  messaging: ['event-relay', 'send-recovery'],
  contacts: ['event-relay'],
  campaigns: ['campaign-scheduler', 'event-relay'],
  inbound: ['inbound-relay'],
};

let system: ReplicatedSystem;
let receiver: Receiver;
let mongo: Connection;

beforeAll(async () => {
  system = await startReplicatedSystem('e2ereplicas', {
    ALLOW_PRIVATE_URLS: 'true',
    // Paced, so that the campaign is still going when replicas are killed.
    SEND_RATE_PER_SECOND: '10',
    SIM_THROUGHPUT_PER_SECOND: '100000',
    SIM_STATUS_DELAYS_MS: '100',
    SCHEDULER_INTERVAL_MS: String(JOB_EVERY_MS),
    EVENT_RELAY_SWEEP_MS: String(JOB_EVERY_MS),
    RELAY_INTERVAL_MS: String(JOB_EVERY_MS),
    SEND_RECOVERY_INTERVAL_MS: String(2 * JOB_EVERY_MS),
    EMIT_RESERVED_EVENTS: 'true',
    WEBHOOK_RETRY_DELAYS: '1,2,4',
  });
  mongo = await mongoose.createConnection(MONGODB_URL).asPromise();
}, 5 * 60_000);

afterAll(async () => {
  await system?.stop();
  await receiver?.close();
  await mongo?.close();
}, 120_000);

const dbOf = (service: ServiceName) => mongo.useDb(`${system.dbPrefix}${service}`);

/** Each replica's runs of each periodic job, from its `/metrics`. */
async function jobRuns(service: ServiceName): Promise<Array<Record<string, number>>> {
  return Promise.all(
    system.replicas.map(async (replica) => {
      const runs: Record<string, number> = {};
      if (replica.pidOf(service) === undefined) return runs;
      const text = await fetch(`http://127.0.0.1:${replica.ports[service]}/metrics`)
        .then((response) => response.text())
        .catch(() => '');
      for (const match of text.matchAll(
        /^switchboard_periodic_job_runs_total\{job="([^"]+)"[^}]*\} (\d+)/gm,
      )) {
        runs[match[1]!] = Number(match[2]);
      }
      return runs;
    }),
  );
}

/** The replica (0 or 1) whose process holds most of the service's leases, if any holds one. */
async function leaseHolder(service: ServiceName): Promise<number | undefined> {
  const leases = await dbOf(service)
    .collection(LEASE_COLLECTION)
    .find({ expires_at: { $gt: new Date() } })
    .toArray();
  const counts = [0, 0];
  for (const lease of leases) {
    const pid = Number(/:(\d+):[0-9a-f]+$/.exec(String(lease.holder))?.[1]);
    const index = system.replicas.findIndex((replica) => replica.pidOf(service) === pid);
    if (index >= 0) counts[index]! += 1;
  }
  if (counts[0] === 0 && counts[1] === 0) return undefined;
  return counts[0]! >= counts[1]! ? 0 : 1;
}

async function seedContacts(companyId: number): Promise<string[]> {
  const phones = Array.from({ length: RECIPIENTS }, (_, i) => `39351${String(i).padStart(7, '0')}`);
  await dbOf('contacts')
    .collection('contacts')
    .insertMany(storedContacts(companyId, phones, 6_000_000));
  return phones;
}

async function createOrganization(name: string): Promise<CreateOrganizationResponse> {
  const response = await fetch(`${system.gateway}/admin/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${system.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, plan: 'premium' }),
  });
  expect(response.status).toBe(201);
  return (await jsonBody(response)) as CreateOrganizationResponse;
}

async function api(token: string, operation: string, body?: Record<string, unknown>) {
  const response = body
    ? await fetch(`${system.gateway}/api/svc/${operation}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      })
    : await fetch(`${system.gateway}/api/svc/${operation}`, {
        headers: { authorization: `Bearer ${token}` },
      });
  return { status: response.status, body: await jsonBody(response) };
}

async function sentPerPhone(phoneNumberId: string): Promise<Map<string, number>> {
  const answer = await jsonBody(
    await fetch(`${system.simulator}/sim/sent?phone_number_id=${phoneNumberId}`),
  );
  const counts = new Map<string, number>();
  for (const record of answer.sent as { wa_id: string }[]) {
    counts.set(record.wa_id, (counts.get(record.wa_id) ?? 0) + 1);
  }
  return counts;
}

async function customerWrites(org: CreateOrganizationResponse, from: string, text: string) {
  const response = await fetch(`${system.simulator}/sim/inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone_number_id: org.channel.phone_number_id, from, text }),
  });
  expect(response.ok).toBe(true);
}

test('when one replica of every service is killed mid-campaign, then nothing is done twice or left undone and the survivors take the periodic work over', async () => {
  const org = await createOrganization('Replicas Co');
  const phoneNumberId = org.channel.phone_number_id;
  const companyId = org.organization.company_id;

  // The customer's endpoint fails each delivery's first attempt: every one goes through a retry.
  const attempts = new Map<string, number>();
  receiver = await startReceiver((request) => {
    const id = String(request.headers['x-webhook-id']);
    const attempt = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, attempt);
    return { status: attempt === 1 ? 500 : 200 };
  });
  const registered = await fetch(`${system.urls.webhooks}/developer/webhooks`, {
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
    body: JSON.stringify({ name: 'replicas', url: receiver.url, events: ['message_sent'] }),
  });
  expect(registered.status).toBe(201);
  receiver.trust((await jsonBody(registered)).webhook.secret as string);

  expect((await api(org.token, 'addFlow', orderFlow() as Record<string, unknown>)).status).toBe(
    201,
  );
  const phones = await seedContacts(companyId);
  const created = await api(org.token, 'createCampaign', {
    name: 'Two of everything',
    type: 'regular',
    message: { type: 'text', text: 'Hello {{1}}' },
    variables: ['contact.phone'],
    audience: { type: 'all' },
    scheduled_at: new Date(Date.now() + 3_000).toISOString(),
  });
  expect(created.status).toBe(201);
  const { campaign } = CampaignResponseSchema.parse(created.body);

  // Started by the scheduler of one replica; its audience is fixed then, before any flow's
  // customer becomes a contact.
  await until(
    async () => {
      const answer = await api(org.token, `getCampaign?id=${campaign.id}`);
      const current = CampaignResponseSchema.parse(answer.body).campaign as CampaignView;
      return current.status === 'started' ? true : undefined;
    },
    'the scheduled campaign to start',
    60_000,
  );
  const flowPhones = ['393519990001', '393519990002'];
  await customerWrites(org, flowPhones[0]!, 'Order!');

  await until(
    async () => ((await sentPerPhone(phoneNumberId)).size >= 60 ? true : undefined),
    '60 recipients reached',
    5 * 60_000,
  );

  // Before the kill: each watched job ran, and on one replica only.
  const before: Partial<Record<ServiceName, Array<Record<string, number>>>> = {};
  for (const [service, jobs] of Object.entries(WATCHED_JOBS) as [ServiceName, string[]][]) {
    before[service] = await jobRuns(service);
    for (const job of jobs) {
      const ran = before[service]!.map((runs) => (runs[job] ?? 0) > 0);
      expect({ service, job, replicasThatRan: ran.filter(Boolean).length }).toEqual({
        service,
        job,
        replicasThatRan: 1,
      });
    }
  }

  const killed: Record<ServiceName, number> = {} as Record<ServiceName, number>;
  const killedAt = Date.now();
  for (const service of REPLICATED) {
    const victim = (await leaseHolder(service)) ?? 1;
    killed[service] = victim;
    await system.replicas[victim as 0 | 1].killService(service);
  }

  // The survivors take over: each watched job runs again, on the replica left.
  const takeoverMs: Record<string, number> = {};
  for (const [service, jobs] of Object.entries(WATCHED_JOBS) as [ServiceName, string[]][]) {
    const survivor = 1 - killed[service];
    for (const job of jobs) {
      const ranBefore = before[service]![survivor]![job] ?? 0;
      await until(
        async () =>
          ((await jobRuns(service))[survivor]![job] ?? 0) > ranBefore ? true : undefined,
        `${service} ${job} taken over`,
        LEASE_TAKEOVER_BOUND_MS + 4 * JOB_EVERY_MS + 30_000,
      );
      takeoverMs[`${service}/${job}`] = Date.now() - killedAt;
    }
  }

  await customerWrites(org, flowPhones[1]!, 'Order!');

  const done = await until(
    async () => {
      const answer = await api(org.token, `getCampaign?id=${campaign.id}`);
      const current = CampaignResponseSchema.parse(answer.body).campaign as CampaignView;
      return current.status === 'completed' ? current : undefined;
    },
    'the campaign to complete',
    10 * 60_000,
  );
  expect(done).toMatchObject({ total_contacts: RECIPIENTS, sent: RECIPIENTS, failed: 0 });

  // The provider received each send once: every recipient one message, each flow one answer.
  const perPhone = await until(async () => {
    const counts = await sentPerPhone(phoneNumberId);
    return flowPhones.every((phone) => counts.has(phone)) ? counts : undefined;
  }, 'both flows answered');
  expect({
    missing: phones.filter((phone) => !perPhone.has(phone)).length,
    twice: [...perPhone].filter(([, count]) => count > 1),
    flowAnswers: flowPhones.map((phone) => perPhone.get(phone)),
  }).toEqual({ missing: 0, twice: [], flowAnswers: [1, 1] });

  // Every message_sent delivered after its retry (refused, then taken), each attempt recorded once.
  // Delivery is at least once: an attempt in flight when its replica was killed is made again
  // by the survivor with the same X-Webhook-Id, so a few deliveries may reach the receiver a
  // third time; nothing more.
  const sentCount = RECIPIENTS + flowPhones.length;
  const delivered = () => [...attempts.values()].filter((requests) => requests >= 2).length;
  await until(
    async () => (delivered() >= sentCount ? true : undefined),
    'every message_sent delivered after its retry',
    5 * 60_000,
  ).catch((error: unknown) => {
    const histogram: Record<string, number> = {};
    for (const count of attempts.values()) histogram[count] = (histogram[count] ?? 0) + 1;
    throw new Error(
      `${String(error)}; requests per delivery: ${JSON.stringify(histogram)} of ${sentCount}`,
    );
  });
  expect(receiver.requests.every((request) => request.verified)).toBe(true);
  const repeated = [...attempts.values()].reduce((sum, requests) => sum + requests - 2, 0);
  expect({ deliveries: attempts.size, repeatedAtMost5: repeated <= 5 }).toEqual({
    deliveries: sentCount,
    repeatedAtMost5: true,
  });
  // The log, the record of attempts, shows every delivery taken. Waited for: a request the
  // killed replica made counts at the receiver above, but is logged only once the survivor has
  // made it again from the redelivered message.
  // A log row's `_id` is `<delivery id>:<attempt>` (the row stores no delivery id of its own).
  const taken = async () => {
    const ids = await dbOf('webhooks')
      .collection('delivery_logs')
      .distinct('_id', { response_status: 200 });
    return [...new Set(ids.map((id) => String(id).slice(0, String(id).lastIndexOf(':'))))];
  };
  await until(
    async () => ((await taken()).length >= sentCount ? true : undefined),
    'every delivery logged as taken',
    60_000,
  );
  expect(await taken()).toHaveLength(sentCount);

  // Nothing left in an outbox: every relay published what it held.
  await until(async () => {
    const left = await Promise.all([
      dbOf('messaging')
        .collection('messages')
        .countDocuments({ 'pending_ids.0': { $exists: true } }),
      dbOf('campaigns')
        .collection('campaigns')
        .countDocuments({ 'pending_ids.0': { $exists: true } }),
      dbOf('contacts')
        .collection('contacts')
        .countDocuments({ pending_count: { $gt: 0 } }),
      dbOf('inbound')
        .collection('inbound_events')
        .countDocuments({ state: 'accepted', published_at: null }),
    ]);
    return left.every((count) => count === 0) ? true : undefined;
  }, 'every outbox emptied');

  process.stdout.write(
    `${JSON.stringify({ replicas: { killed, lease_takeover_ms: takeoverMs } })}\n`,
  );
});

test('when the services have created their indexes, then each large collection’s unique indexes start with its documented shard key', async () => {
  const problems: string[] = [];
  for (const { service, collection, key } of SHARD_KEYS) {
    const indexes = (await dbOf(service)
      .collection(collection)
      .listIndexes()
      .toArray()) as IndexDefinition[];
    expect({ collection, created: indexes.length > 0 }).toEqual({ collection, created: true });
    problems.push(...shardKeyViolations(key, indexes).map((text) => `${collection}: ${text}`));
  }
  expect(problems).toEqual([]);
});
