// getContacts with many contacts: seeds N contacts of one organization into
// an isolated database, then times the service's answers over HTTP beside a baseline from the same
// run — the same query sent straight to the collection with the driver.
//
//   npx tsc -b && node services/contacts/bench/get-contacts.bench.js [N]
//
// Env: N (default 100000), OTHER_CONTACTS (contacts of a second organization, default 0),
// MONGODB_URL, AMQP_URL, REPEAT (timed runs per measure, the median is shown; default 1).
// Plain JavaScript on the compiled service (dist/), so that it needs no TypeScript runner.
const { randomBytes } = require('node:crypto');
const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist');
const { startService } = require(path.join(dist, 'start-service'));
const { contactsConfigSchema } = require(path.join(dist, 'config'));

const N = Number(process.argv[2] ?? process.env.N ?? 100_000);
const OTHER = Number(process.env.OTHER_CONTACTS ?? 0);
const REPEAT = Math.max(1, Number(process.env.REPEAT ?? 1));
const SEED_BATCH = 5_000;
const COMPANY = 1;
const GROUP = 1;
const secret = randomBytes(24).toString('hex');

function contactDoc(id, company_id, created_at) {
  return {
    id,
    company_id,
    name: `Contact ${id}`,
    phone: String(390_000_000_000 + id),
    email: id % 3 === 0 ? `contact${id}@example.com` : null,
    language: null,
    subscription: id % 20 === 0 ? 'unsubscribed' : 'subscribed',
    group_ids: id % 10 === 0 ? [GROUP] : [],
    custom: { city: 'Rome', tier: String(id % 5) },
    ai_bot_enabled: false,
    created_at,
    updated_at: created_at,
    pending_events: {},
    pending_count: 0,
  };
}

async function seed(db) {
  const contacts = db.collection('contacts');
  const now = new Date();
  const total = N + OTHER;
  for (let first = 1; first <= total; first += SEED_BATCH) {
    const docs = [];
    for (let id = first; id < Math.min(total + 1, first + SEED_BATCH); id++) {
      docs.push(contactDoc(id, id <= N ? COMPANY : COMPANY + 1, now));
    }
    await contacts.insertMany(docs, { ordered: false });
  }
  await db.collection('groups').insertOne({
    id: GROUP,
    company_id: COMPANY,
    name: 'Every tenth',
    name_key: 'every tenth',
    created_at: now,
    updated_at: now,
  });
  await db.collection('contact_quotas').insertOne({ _id: COMPANY, count: N });
  await db.collection('counters').insertMany([
    { _id: 'contacts', seq: total },
    { _id: 'groups', seq: GROUP },
  ]);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function time(fn, repeat = REPEAT) {
  const runs = [];
  let result;
  for (let i = 0; i < repeat; i++) {
    const started = process.hrtime.bigint();
    result = await fn();
    runs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { ms: median(runs), result };
}

async function main() {
  const prefix = `bench_${randomBytes(4).toString('hex')}_`;
  const service = await startService(
    contactsConfigSchema.parse({
      PORT: '0',
      MONGODB_DB_PREFIX: prefix,
      INTERNAL_API_SECRET: secret,
      LOG_LEVEL: 'warn',
      ...(process.env.MONGODB_URL ? { MONGODB_URL: process.env.MONGODB_URL } : {}),
      ...(process.env.AMQP_URL ? { AMQP_URL: process.env.AMQP_URL } : {}),
    }),
  );
  const db = service.db.db;
  const contacts = db.collection('contacts');
  const headers = {
    'x-internal-secret': secret,
    'x-org-id': String(COMPANY),
    'x-org-plan': 'premium',
    'x-org-plan-started-at': new Date().toISOString(),
  };
  const get = async (operation, query = '') => {
    const response = await fetch(`${service.url}/api/svc/${operation}${query}`, { headers });
    const text = await response.text();
    if (response.status !== 200)
      throw new Error(`${operation}${query}: ${response.status} ${text}`);
    return { bytes: text.length, body: JSON.parse(text) };
  };
  const byId = { id: 1 };
  const noId = { projection: { _id: 0 } };
  const page = (filter, skip, limit) =>
    Promise.all([
      contacts.find(filter, noId).sort(byId).skip(skip).limit(limit).toArray(),
      contacts.countDocuments(filter),
    ]);

  try {
    const seeded = await time(() => seed(db), 1);
    console.log(
      `seeded ${N} contacts${OTHER ? ` (+${OTHER} of another organization)` : ''} in ${(seeded.ms / 1000).toFixed(1)} s with insertMany, ${SEED_BATCH} per batch`,
    );
    const mid = Math.max(1, Math.floor(N / 2 / 100));
    const measures = [
      {
        label: 'getContacts page=1 per_page=100',
        service: () => get('getContacts', '?page=1&per_page=100'),
        baseline: () => page({ company_id: COMPANY }, 0, 100),
      },
      {
        label: `getContacts page=${mid} per_page=100`,
        service: () => get('getContacts', `?page=${mid}&per_page=100`),
        baseline: () => page({ company_id: COMPANY }, (mid - 1) * 100, 100),
      },
      {
        label: 'getContacts last page, per_page=1000',
        service: () => get('getContacts', `?page=${Math.ceil(N / 1000)}&per_page=1000`),
        baseline: () => page({ company_id: COMPANY }, (Math.ceil(N / 1000) - 1) * 1000, 1000),
      },
      {
        label: 'getContacts group_id page=1 per_page=100',
        service: () => get('getContacts', `?group_id=${GROUP}&per_page=100`),
        baseline: () => page({ company_id: COMPANY, group_ids: { $in: [GROUP] } }, 0, 100),
      },
      {
        label: 'getContacts search="Contact 99" per_page=100',
        service: () => get('getContacts', '?search=Contact%2099&per_page=100'),
        baseline: () => page({ company_id: COMPANY, $or: [{ name: /Contact 99/i }] }, 0, 100),
      },
      {
        label: `getSingleContact contact_id=${N}`,
        service: () => get('getSingleContact', `?contact_id=${N}`),
        baseline: () => contacts.findOne({ company_id: COMPANY, id: N }, noId),
      },
      {
        label: 'getContacts, all (streamed)',
        service: () => get('getContacts'),
        baseline: async () => {
          let count = 0;
          const cursor = contacts.find({ company_id: COMPANY }, noId).sort(byId).batchSize(1000);
          for await (const _contact of cursor) count++;
          return count;
        },
      },
    ];

    const rows = [];
    for (const measure of measures) {
      const service = await time(measure.service);
      const baseline = await time(measure.baseline);
      const { body, bytes } = service.result;
      const returned = body.contacts ? body.contacts.length : 1;
      rows.push({
        measure: measure.label,
        'service ms': Math.round(service.ms),
        'baseline ms': Math.round(baseline.ms),
        'service / baseline': (service.ms / baseline.ms).toFixed(2),
        contacts: returned,
        'response KiB': Math.round(bytes / 1024),
      });
      console.log(
        `  ${measure.label}: service ${Math.round(service.ms)} ms, baseline ${Math.round(baseline.ms)} ms`,
      );
    }
    const all = rows[rows.length - 1];
    if (all.contacts !== N) throw new Error(`full listing returned ${all.contacts} of ${N}`);
    console.log(`\ngetContacts with ${N} contacts (median of ${REPEAT} run(s) each)`);
    console.table(rows);
    // Service and client share this process: the client holds each whole answer as text.
    const peak = process.resourceUsage().maxRSS;
    console.log(`peak RSS of this process (service + client): ${Math.round(peak / 1024)} MiB`);
  } finally {
    await db.dropDatabase();
    await service.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
