// The CPU one process spends per stored webhook: a batch of raw webhook rows inserted through the
// driver's insertMany (mongoose's collection, the bulk-write machinery) against one `insert`
// command (the service kit's insertDocuments, what inbound's intake uses), batches awaited one
// after the other, in a database of its own (dropped at the end).
//
//   npx tsc -b && node services/inbound/bench/insert-command.bench.js [BATCHES]
//
// Env: BATCHES (per measured round, default 400), BATCH (rows a batch, default 6: the send
// benchmark's intake batches), ROUNDS (default 2), MONGODB_URL.
const path = require('node:path');
const root = path.join(__dirname, '..', '..', '..');
const mongoose = require('mongoose');
const { insertDocuments } = require(path.join(root, 'packages', 'service-kit'));
const { statusWebhook } = require(path.join(root, 'scripts', 'status-webhook'));

const MONGODB_URL = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017';
const BATCHES = Number(process.argv[2] ?? process.env.BATCHES ?? 400);
const BATCH = Number(process.env.BATCH ?? 6);
const ROUNDS = Number(process.env.ROUNDS ?? 2);

const RAW_BODY = JSON.stringify(statusWebhook());

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function main() {
  const name = `bench_insert_${process.pid}`;
  const connection = await mongoose.createConnection(`${MONGODB_URL}/${name}`).asPromise();
  try {
    const Events = connection.model(
      'InboundEvent',
      new mongoose.Schema({ _id: String }, { strict: false, versionKey: false }),
      'inbound_events',
    );
    await Events.init();
    let next = 0;
    const batch = () =>
      Array.from({ length: BATCH }, () => ({
        _id: `e${(next += 1)}`,
        company_id: 1,
        body_sha256: String(next).padStart(64, '0'),
        raw_body: RAW_BODY,
        state: 'accepted',
        reason: null,
        received_at: new Date(),
        published_at: null,
      }));
    const perRow = async (insert) => {
      for (let i = 0; i < 50; i += 1) await insert(batch()); // warm-up
      const before = cpuMs();
      for (let i = 0; i < BATCHES; i += 1) await insert(batch());
      return (((cpuMs() - before) / (BATCHES * BATCH)) * 1000).toFixed(1);
    };
    const rows = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      rows.push({
        round,
        'insertMany µs per row': await perRow((docs) =>
          Events.collection.insertMany(docs, { ordered: false }),
        ),
        'insert command µs per row': await perRow((docs) => insertDocuments(Events, docs)),
      });
    }
    console.log(`${BATCHES} batches of ${BATCH} rows a round`);
    console.table(rows);
    await connection.dropDatabase();
  } finally {
    await connection.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
