// docdb orders writes per document when they name their document by `_id`, and per collection
// otherwise (FerretDB reads, changes and writes back a document with nothing held in between, so
// two writes that may touch one document must not overlap). Shown here on a docdb of its own
// (own port and PostgreSQL database, started through infra.sh), with one document's write held
// for as long as the test wants: a PostgreSQL transaction keeps that document's row locked, so
// FerretDB's write of it waits inside PostgreSQL while docdb counts it as under way.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import mongoose from 'mongoose';
import { startOwnDocdb, type OwnDocdb } from '../support/own-docdb';

const ROOT = path.resolve(__dirname, '../..');
const INFRA = path.join(ROOT, 'scripts/infra.sh');
const { MongoClient } = mongoose.mongo;
type MongoClientT = InstanceType<typeof MongoClient>;

interface Tally {
  _id: string;
  group: string;
  n: number;
}

/** The promise's value, or a clear failure once `ms` passed without an answer. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`docdb did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('docdb write ordering', () => {
  let docdb: OwnDocdb | undefined;
  let url: string;
  let client: MongoClientT;
  const dbName = 'write_order_test';

  /** One psql statement on this docdb's PostgreSQL database, its rows as lines. */
  async function sql(statement: string): Promise<string[]> {
    const { stdout } = await docdb!.infra(['psql', '-tA', '-c', statement]);
    return stdout.split('\n').filter(Boolean);
  }

  /** Keeps the row of document `id` locked in a PostgreSQL transaction until `release`. */
  async function holdRow(collection: string, id: string) {
    const [table] = await sql(
      `SELECT _jsonb->>'table' FROM "${dbName}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = '${collection}'`,
    );
    expect(table).toBeTruthy();
    const psql: ChildProcessWithoutNullStreams = spawn('bash', [INFRA, 'psql', '-tA'], {
      env: docdb!.env,
    });
    const exited = new Promise((resolve) => psql.once('exit', resolve));
    let output = '';
    psql.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    psql.stdin.write(
      `BEGIN;\nSELECT 'held:' || (_jsonb->>'_id') FROM "${dbName}"."${table}" WHERE _jsonb->>'_id' = '${id}' FOR UPDATE;\n`,
    );
    await within(
      20_000,
      'the row lock',
      waitFor(() => output.includes(`held:${id}`)),
    );
    let released = false;
    return {
      release: async () => {
        if (!released) psql.stdin.end('ROLLBACK;\n');
        released = true;
        await exited;
      },
    };
  }

  /** Resolves once `check` holds, checking every 100 ms. */
  async function waitFor(check: () => boolean | Promise<boolean>) {
    while (!(await check())) await sleep(100);
  }

  /** Writes waiting inside PostgreSQL for a row lock (FerretDB's update of a held document). */
  async function writesWaitingForRows(): Promise<number> {
    const [count] = await sql(
      `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE 'UPDATE%'`,
    );
    return Number(count);
  }

  /** A promise whose settling can be looked at without waiting for it. */
  function watched<T>(promise: Promise<T>) {
    const state = { settled: false, promise };
    promise.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    return state;
  }

  beforeAll(async () => {
    docdb = await startOwnDocdb(27_820);
    url = docdb.url;
    client = await MongoClient.connect(url, { maxPoolSize: 200 });
    await client.db(dbName).dropDatabase();
  }, 180_000);

  afterAll(async () => {
    // Bounded: a docdb that stopped answering must still be stopped.
    await within(10_000, 'dropDatabase', client?.db(dbName).dropDatabase()).catch(() => {});
    await client?.close(true);
    await docdb?.down().catch(() => {});
  }, 60_000);

  async function freshTallies(collection: string, ids: string[]) {
    const tallies = client.db(dbName).collection<Tally>(collection);
    await tallies.insertMany(ids.map((_id) => ({ _id, group: 'g', n: 0 })));
    return tallies;
  }

  test('when a write to one document is held, then a write to another document of the collection completes meanwhile', async () => {
    const tallies = await freshTallies('side_by_side', ['a', 'b']);
    const row = await holdRow('side_by_side', 'a');
    try {
      const heldWrite = watched(tallies.updateOne({ _id: 'a' }, { $inc: { n: 1 } }));
      await within(
        20_000,
        'the held write reaching PostgreSQL',
        waitFor(async () => (await writesWaitingForRows()) >= 1),
      );

      await within(
        20_000,
        'a write to document b',
        tallies.updateOne({ _id: 'b' }, { $inc: { n: 1 } }),
      );
      await within(
        20_000,
        'a findOneAndUpdate of document b',
        tallies.findOneAndUpdate({ _id: 'b' }, { $inc: { n: 1 } }),
      );
      await within(20_000, 'a new document', tallies.insertOne({ _id: 'c', group: 'g', n: 0 }));

      expect(heldWrite.settled).toBe(false);
      expect(await tallies.findOne({ _id: 'b' })).toMatchObject({ n: 2 });
      await row.release();
      await within(20_000, 'the held write', heldWrite.promise);
    } finally {
      await row.release();
    }
    expect(await tallies.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', group: 'g', n: 1 },
      { _id: 'b', group: 'g', n: 2 },
      { _id: 'c', group: 'g', n: 0 },
    ]);
  }, 120_000);

  test('when a write to one document is held, then other writes that may touch it wait for it and no change is lost', async () => {
    const tallies = await freshTallies('waiting', ['a', 'b']);
    const row = await holdRow('waiting', 'a');
    const writes = [];
    try {
      writes.push(tallies.updateOne({ _id: 'a' }, { $inc: { n: 1 } }));
      await within(
        20_000,
        'the held write reaching PostgreSQL',
        waitFor(async () => (await writesWaitingForRows()) >= 1),
      );
      // By its _id, by another field, all of the collection, and a bulk write naming it too.
      writes.push(tallies.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 10 } }));
      writes.push(tallies.updateOne({ group: 'g', _id: { $in: ['a'] } }, { $inc: { n: 100 } }));
      writes.push(tallies.updateMany({}, { $inc: { n: 1000 } }));
      writes.push(
        tallies.bulkWrite([
          { updateOne: { filter: { _id: 'b' }, update: { $inc: { n: 1 } } } },
          { updateOne: { filter: { _id: 'a' }, update: { $inc: { n: 10_000 } } } },
        ]),
      );
      // Had any of them run beside the held one, it would have read the old document and now
      // wait in PostgreSQL too, to write back a copy without the held change.
      await sleep(1_000);
      expect(await writesWaitingForRows()).toBe(1);
      await row.release();
      await within(30_000, 'the writes', Promise.all(writes));
    } finally {
      await row.release();
    }
    const a = await tallies.findOne({ _id: 'a' });
    expect(a?.n).toBe(11_111);
    expect((await tallies.findOne({ _id: 'b' }))?.n).toBe(1_001);
  }, 120_000);

  test('when more writes to different documents arrive at once than FerretDB keeps PostgreSQL connections, then all complete and docdb still answers', async () => {
    // FerretDB's update holds one pooled connection for its query while it takes a second for
    // the write, without a time limit: fifty at once would each hold one and wait for good.
    const ids = Array.from({ length: 150 }, (_, i) => `doc-${i}`);
    const tallies = await freshTallies('many', ids);
    await within(
      60_000,
      '150 concurrent updates',
      Promise.all(ids.map((_id) => tallies.updateOne({ _id }, { $inc: { n: 1 } }))),
    );
    await within(10_000, 'ping', client.db('admin').command({ ping: 1 }));
    expect(await tallies.countDocuments({ n: 1 })).toBe(ids.length);
  }, 120_000);
});
