// docdb on PostgreSQL keeps a non-unique index's btree only for the documents that lack the
// index's first field: FerretDB asks such a btree nothing else (equality goes to the GIN companion
// docdb adds, `_id` to its unique index), and every insert and update would write it. Shown here
// on a docdb of its own (own port and PostgreSQL database, started through infra.sh): what
// PostgreSQL holds, that `{field: null}` still reaches the narrowed btree, and that the answers
// stay MongoDB's while documents gain and lose the field. An index on a list's first element (the
// outbox relays' `pending_ids.0`) becomes a partial index on that element with statistics, which
// the relays' poll (`{"pending_ids.0": {$exists: true}}`) is answered from instead of a scan.
import mongoose from 'mongoose';
import { startOwnDocdb, type OwnDocdb } from '../support/own-docdb';

const { MongoClient } = mongoose.mongo;
type MongoClientT = InstanceType<typeof MongoClient>;

interface Doc {
  _id: number;
  a?: unknown;
  b?: string;
  u?: string;
  pending_ids?: unknown;
  body?: string;
}

/** The condition docdb's FerretDB sends for `{"pending_ids.0": {$exists: true}}`. */
const PENDING_SQL = `_jsonb #> '{"pending_ids","0"}'::text[] IS NOT NULL`;

describe('docdb indexes on PostgreSQL', () => {
  let docdb: OwnDocdb | undefined;
  let client: MongoClientT;
  const dbName = 'index_shape_test';

  /** psql statements on this docdb's PostgreSQL database, the last one's rows as lines. */
  async function sql(...statements: string[]): Promise<string[]> {
    const args = statements.flatMap((statement) => ['-c', statement]);
    const { stdout } = await docdb!.infra(['psql', '-tA', ...args]);
    return stdout.split('\n').filter(Boolean);
  }

  /** The PostgreSQL table FerretDB keeps a collection in. */
  async function tableOf(collection: string): Promise<string> {
    const [table] = await sql(
      `SELECT _jsonb->>'table' FROM "${dbName}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = '${collection}'`,
    );
    expect(table).toBeTruthy();
    return table!;
  }

  /** The collection's PostgreSQL indexes, definition by name. */
  async function tableIndexes(collection: string): Promise<Map<string, string>> {
    const table = await tableOf(collection);
    const rows = await sql(
      `SELECT indexname || '|' || indexdef FROM pg_indexes WHERE schemaname = '${dbName}' AND tablename = '${table}'`,
    );
    return new Map(rows.map((row) => row.split('|') as [string, string]));
  }

  beforeAll(async () => {
    docdb = await startOwnDocdb(27_830);
    client = await MongoClient.connect(docdb.url);
    await client.db(dbName).dropDatabase();
  }, 180_000);

  afterAll(async () => {
    await client?.db(dbName).dropDatabase();
    await client?.close(true);
    await docdb?.down().catch(() => {});
  }, 60_000);

  test('when indexes are created, then a non-unique btree keeps only documents without its first field, beside its GIN companion, and a unique one keeps all', async () => {
    const docs = client.db(dbName).collection<Doc>('shapes');
    await docs.insertMany([{ _id: 1, a: 1, b: 'x' }, { _id: 2 }]);
    const pair = await docs.createIndex({ a: 1, b: -1 });
    const unique = await docs.createIndex({ u: 1 }, { unique: true });
    await docs.insertOne({ _id: 3, a: 2, u: 'k' }); // after the indexes, through the event trigger

    const indexes = [...(await tableIndexes('shapes')).entries()];
    const pairBtree = indexes.filter(
      ([name, def]) => name.includes('_a___b_') && def.includes('USING btree'),
    );
    expect(pairBtree).toHaveLength(1);
    expect(pairBtree[0]![1]).toMatch(/WHERE \(\(_jsonb -> 'a'::text\) IS NULL\)$/);
    expect(
      indexes.filter(([name, def]) => name.includes('_a___b_') && def.includes('USING gin')),
    ).toHaveLength(1);
    const uniqueBtree = indexes.filter(
      ([name, def]) => name.includes('_u___') && def.includes('UNIQUE'),
    );
    expect(uniqueBtree).toHaveLength(1);
    expect(uniqueBtree[0]![1]).not.toContain('WHERE');
    // The unique key is still enforced, documents without it included.
    await expect(docs.insertOne({ _id: 4, u: 'k' })).rejects.toThrow(/duplicate key/i);

    // FerretDB still lists and drops the index by its name, and the companion goes with it.
    const names = (await docs.indexes()).map((index) => index.name);
    expect(names).toEqual(expect.arrayContaining(['_id_', pair, unique]));
    await docs.dropIndex(pair);
    expect(
      [...(await tableIndexes('shapes')).keys()].filter((name) => name.includes('_a___b_')),
    ).toEqual([]);
  });

  test("when documents gain and lose an indexed field, then equality, null and missing answers stay MongoDB's", async () => {
    const docs = client.db(dbName).collection<Doc>('answers');
    await docs.createIndex({ a: 1 });
    await docs.insertMany([
      { _id: 1, a: 1 },
      { _id: 2, a: null },
      { _id: 3 },
      { _id: 4, a: [1, 2] },
      { _id: 5, a: [null, 3] },
      { _id: 6, a: 'x' },
    ]);
    const ids = async (filter: object) =>
      (await docs.find(filter).sort({ _id: 1 }).toArray()).map((doc) => doc._id);

    expect(await ids({ a: null })).toEqual([2, 3, 5]);
    expect(await ids({ a: 1 })).toEqual([1, 4]);
    expect(await ids({ a: 'x' })).toEqual([6]);
    expect(await ids({ a: { $exists: false } })).toEqual([3]);

    await docs.updateOne({ _id: 3 }, { $set: { a: 1 } });
    await docs.updateOne({ _id: 1 }, { $unset: { a: '' } });
    expect(await ids({ a: null })).toEqual([1, 2, 5]);
    expect(await ids({ a: 1 })).toEqual([3, 4]);
    expect(await docs.countDocuments({ a: null })).toBe(3);
  });

  test('when {field: null} is pushed down, then PostgreSQL can answer it from the narrowed btree', async () => {
    const docs = client.db(dbName).collection<Doc>('plans');
    await docs.createIndex({ a: 1 });
    await docs.insertMany([{ _id: 1, a: 1 }, { _id: 2 }]);
    const indexes = await tableIndexes('plans');
    const [btree] =
      [...indexes.entries()].find(([, def]) => def.includes("USING btree (((_jsonb -> 'a'")) ?? [];
    expect(btree).toBeTruthy();
    const [table] = await sql(
      `SELECT _jsonb->>'table' FROM "${dbName}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = 'plans'`,
    );
    // The condition docdb's FerretDB sends for {a: null}; a sequential scan ruled out, as a
    // small table would otherwise be read whole whatever the indexes.
    const plan = await sql(
      'SET enable_seqscan = off',
      `EXPLAIN SELECT _jsonb FROM "${dbName}"."${table}" WHERE (_jsonb->'a' IS NULL OR _jsonb->'a' @> 'null'::jsonb)`,
    );
    expect(plan.join('\n')).toContain(btree);
  });

  test("when an index is declared on a list's first element, then PostgreSQL keeps a partial index on that element and statistics on it, dropped with it", async () => {
    const docs = client.db(dbName).collection<Doc>('outbox_shape');
    await docs.insertMany([
      { _id: 1, pending_ids: ['e1'] },
      { _id: 2, pending_ids: [] },
    ]);
    const name = await docs.createIndex({ 'pending_ids.0': 1 }, { sparse: true });
    const table = await tableOf('outbox_shape');

    const defs = [...(await tableIndexes('outbox_shape')).values()].filter((def) =>
      def.includes('pending_ids'),
    );
    expect(defs).toEqual([
      expect.stringMatching(
        /USING btree \(\(\(_jsonb #> '\{pending_ids,0\}'::text\[\]\)\)\) WHERE \(\(_jsonb #> '\{pending_ids,0\}'::text\[\]\) IS NOT NULL\)$/,
      ),
    ]);
    const statistics = () =>
      sql(
        `SELECT pg_get_statisticsobjdef(s.oid) FROM pg_statistic_ext s WHERE s.stxrelid = '"${dbName}"."${table}"'::regclass`,
      );
    expect(await statistics()).toEqual([
      expect.stringContaining(`(_jsonb #> '{pending_ids,0}'::text[])`),
    ]);

    // FerretDB still lists and drops the index by its name, and the statistics go with it.
    expect((await docs.indexes()).map((index) => index.name)).toContain(name);
    await docs.dropIndex(name);
    expect(
      [...(await tableIndexes('outbox_shape')).values()].filter((def) =>
        def.includes('pending_ids'),
      ),
    ).toEqual([]);
    expect(await statistics()).toEqual([]);
  });

  test("when lists gain and lose their first element, then {'pending_ids.0': {$exists}} answers stay MongoDB's", async () => {
    const docs = client.db(dbName).collection<Doc>('outbox_answers');
    await docs.createIndex({ 'pending_ids.0': 1 }, { sparse: true });
    await docs.insertMany([
      { _id: 1, pending_ids: ['e1'] },
      { _id: 2, pending_ids: ['e2', 'e3'] },
      { _id: 3, pending_ids: [] },
      { _id: 4 },
      { _id: 5, pending_ids: null },
      { _id: 6, pending_ids: [null] },
      { _id: 7, pending_ids: { '0': 'x' } },
      { _id: 8, pending_ids: 'e8' },
    ]);
    const ids = async (filter: object) =>
      (await docs.find(filter).sort({ _id: 1 }).toArray()).map((doc) => doc._id);
    const waiting = { 'pending_ids.0': { $exists: true } };

    expect(await ids(waiting)).toEqual([1, 2, 6, 7]);
    expect(await ids({ 'pending_ids.0': { $exists: false } })).toEqual([3, 4, 5, 8]);

    // What the relays do: events added to a record, cleared once published (untyped: the
    // documents above give `pending_ids` every shape, which the driver's update types refuse).
    const relayed = client.db(dbName).collection<{ _id: number }>('outbox_answers');
    await relayed.updateOne({ _id: 3 }, { $addToSet: { pending_ids: { $each: ['e4'] } } });
    await relayed.updateOne({ _id: 1 }, { $pullAll: { pending_ids: ['e1'] } });
    await relayed.updateOne({ _id: 2 }, { $pullAll: { pending_ids: ['e2'] } });
    await relayed.updateOne({ _id: 4 }, { $set: { pending_ids: ['e5'] } });
    expect(await ids(waiting)).toEqual([2, 3, 4, 6, 7]);
    expect(await docs.countDocuments(waiting)).toBe(5);
    expect(await ids({ ...waiting, _id: { $gt: 2 } })).toEqual([3, 4, 6, 7]);
  });

  test('when few of a few thousand records have events waiting, then the poll is answered from the partial index', async () => {
    const docs = client.db(dbName).collection<Doc>('outbox_plans');
    const body = 'x'.repeat(200);
    for (let start = 0; start < 4000; start += 1000) {
      await docs.insertMany(
        Array.from({ length: 1000 }, (_, i) => ({
          _id: start + i,
          body,
          pending_ids: (start + i) % 400 === 0 ? [`e${start + i}`] : [],
        })),
      );
    }
    // Declared on a collection that has its documents already: made with its statistics.
    await docs.createIndex({ 'pending_ids.0': 1 }, { sparse: true });
    expect(await docs.countDocuments({ 'pending_ids.0': { $exists: true } })).toBe(10);
    const table = await tableOf('outbox_plans');
    const [index] = [...(await tableIndexes('outbox_plans')).entries()].find(([, def]) =>
      def.includes('pending_ids'),
    )!;
    // No ANALYZE here and sequential scans allowed: the planner itself picks the index.
    const plan = await sql(
      `EXPLAIN SELECT _jsonb FROM "${dbName}"."${table}" WHERE ${PENDING_SQL}`,
    );
    // An index scan or a bitmap of it, whichever the planner costs lower; never the whole table.
    expect(plan.join('\n')).toMatch(new RegExp(`Index Scan (using|on) ${index}`));
    expect(plan.join('\n')).not.toContain('Seq Scan');
  });
});
