// docdb on PostgreSQL keeps a non-unique index's btree only for the documents that lack the
// index's first field: FerretDB asks such a btree nothing else (equality goes to the GIN companion
// docdb adds, `_id` to its unique index), and every insert and update would write it. Shown here
// on a docdb of its own (own port and PostgreSQL database, started through infra.sh): what
// PostgreSQL holds, that `{field: null}` still reaches the narrowed btree, and that the answers
// stay MongoDB's while documents gain and lose the field.
import mongoose from 'mongoose';
import { startOwnDocdb, type OwnDocdb } from '../support/own-docdb';

const { MongoClient } = mongoose.mongo;
type MongoClientT = InstanceType<typeof MongoClient>;

interface Doc {
  _id: number;
  a?: unknown;
  b?: string;
  u?: string;
}

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

  /** The collection's PostgreSQL indexes, definition by name. */
  async function tableIndexes(collection: string): Promise<Map<string, string>> {
    const [table] = await sql(
      `SELECT _jsonb->>'table' FROM "${dbName}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = '${collection}'`,
    );
    expect(table).toBeTruthy();
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
});
