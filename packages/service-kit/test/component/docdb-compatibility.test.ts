// Proves that the mongoose features every service relies on work against the document database
// the tests run on (FerretDB locally, MongoDB in production): docs/architecture.md §10 and §11.
import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';
import { isDuplicateKeyError } from '../../src/duplicate-key-error';

interface Item {
  orgId: number;
  key: string;
  rank: number;
  label?: unknown;
}

interface Quota {
  _id: string;
  used: number;
}

interface Counter {
  _id: string;
  seq: number;
}

let db: Connection;
let Items: Model<Item>;
let Counters: Model<Counter>;
let Quotas: Model<Quota>;

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, {
      dbName: `${uniquePrefix('docdb')}compat`,
      serverSelectionTimeoutMS: 10_000,
    })
    .asPromise();
  const itemSchema = new Schema<Item>({
    orgId: { type: Number, required: true },
    key: { type: String, required: true },
    rank: { type: Number, required: true },
    label: Schema.Types.Mixed, // not cast by mongoose, so the filter reaches the database as built
  });
  itemSchema.index({ orgId: 1, key: 1 }, { unique: true });
  Items = db.model<Item>('Item', itemSchema, 'items');
  Counters = db.model<Counter>(
    'Counter',
    new Schema<Counter>({ _id: String, seq: Number }, { versionKey: false }),
    'counters',
  );
  Quotas = db.model<Quota>(
    'Quota',
    new Schema<Quota>({ _id: String, used: Number }, { versionKey: false }),
    'quotas',
  );
  await Items.init(); // builds the unique index before any test writes
});

afterAll(async () => {
  await db?.dropDatabase();
  await db?.close();
});

describe('document database compatibility (mongoose)', () => {
  test('when a document is created, then it can be read back by its _id', async () => {
    const created = await Items.create({ orgId: 1, key: 'created', rank: 7 });
    const found = await Items.findById(created._id).lean();
    expect(found).toMatchObject({ orgId: 1, key: 'created', rank: 7 });
  });

  test('when a second document breaks a unique index, then the write fails with code 11000', async () => {
    await Items.create({ orgId: 2, key: 'dup', rank: 1 });
    await expect(Items.create({ orgId: 2, key: 'dup', rank: 2 })).rejects.toMatchObject({
      code: 11000,
    });
    // The same key in another organization is a different entry.
    await expect(Items.create({ orgId: 3, key: 'dup', rank: 1 })).resolves.toBeDefined();
    expect(await Items.countDocuments({ key: 'dup' })).toBe(2);
  });

  test('when an update or findOneAndUpdate moves a document onto a taken unique key, then the write fails and isDuplicateKeyError says so', async () => {
    await Items.create({ orgId: 4, key: 'taken', rank: 1 });
    const mover = await Items.create({ orgId: 4, key: 'free', rank: 2 });
    // MongoDB answers 11000; FerretDB answers code 1 in its backend's words (SQLite, PostgreSQL).
    const viaUpdate = await Items.updateOne({ _id: mover._id }, { $set: { key: 'taken' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const viaFindAndModify = await Items.findOneAndUpdate(
      { _id: mover._id },
      { $set: { key: 'taken' } },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDuplicateKeyError(viaUpdate)).toBe(true);
    expect(isDuplicateKeyError(viaFindAndModify)).toBe(true);
    expect(isDuplicateKeyError(new Error('connection reset'))).toBe(false);
    expect(await Items.countDocuments({ orgId: 4, key: 'free' })).toBe(1);
  });

  test('when a counter is incremented with upsert, also concurrently, then every call returns a new value, 1..n without gaps', async () => {
    const next = async (name: string) => {
      const counter = await Counters.findOneAndUpdate(
        { _id: name },
        { $inc: { seq: 1 } },
        { upsert: true, returnDocument: 'after' },
      ).lean();
      return counter!.seq;
    };
    expect(await next('messages')).toBe(1);
    expect(await next('messages')).toBe(2);
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => next('messages')));
    expect([...concurrent].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 3),
    );
    expect(await next('contacts')).toBe(1);
  });

  test('when documents are counted with a filter, then only the matching ones are counted', async () => {
    await Items.insertMany([
      { orgId: 10, key: 'a', rank: 1 },
      { orgId: 10, key: 'b', rank: 5 },
      { orgId: 10, key: 'c', rank: 9 },
      { orgId: 11, key: 'a', rank: 9 },
    ]);
    expect(await Items.countDocuments({ orgId: 10 })).toBe(3);
    expect(await Items.countDocuments({ orgId: 10, rank: { $gte: 5 } })).toBe(2);
    expect(await Items.countDocuments({ orgId: 12 })).toBe(0);
  });

  test('when a page is asked with sort, skip and limit, then exactly that page comes back in order', async () => {
    await Items.insertMany(
      Array.from({ length: 25 }, (_, i) => ({ orgId: 20, key: `k${i}`, rank: (i * 7) % 25 })),
    );
    const page = await Items.find({ orgId: 20 }).sort({ rank: -1 }).skip(10).limit(5).lean();
    expect(page.map((item) => item.rank)).toEqual([14, 13, 12, 11, 10]);
    const last = await Items.find({ orgId: 20 }).sort({ rank: -1 }).skip(20).limit(10).lean();
    expect(last.map((item) => item.rank)).toEqual([4, 3, 2, 1, 0]);
  });

  test('when reservations race for the last units with a conditional $inc, then exactly the limit is granted', async () => {
    await Quotas.create({ _id: 'org-1', used: 0 });
    const limit = 10;
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        Quotas.updateOne({ _id: 'org-1', used: { $lte: limit - 1 } }, { $inc: { used: 1 } }),
      ),
    );
    expect(results.filter((r) => r.modifiedCount === 1)).toHaveLength(limit);
    expect((await Quotas.findById('org-1').lean())!.used).toBe(limit);
  });

  test('when writers change many documents of one collection at once, by _id, by another field and in bulk, then no change is lost', async () => {
    // docdb runs writes to different documents side by side and writes that may touch several
    // one at a time; FerretDB alone loses updates that overlap on one document.
    const ids = Array.from({ length: 8 }, (_, i) => `tally-${i}`);
    await Quotas.insertMany(ids.map((_id) => ({ _id, used: 0 })));
    const byId = ids.flatMap((_id) =>
      Array.from({ length: 6 }, () => Quotas.updateOne({ _id }, { $inc: { used: 1 } })),
    );
    const returned = ids.flatMap((_id) =>
      Array.from({ length: 4 }, () =>
        Quotas.findOneAndUpdate({ _id: { $eq: _id } }, { $inc: { used: 10 } }),
      ),
    );
    const acrossAll = Array.from({ length: 3 }, () =>
      Quotas.updateMany({ _id: { $in: ids } }, { $inc: { used: 100 } }),
    );
    const inBulk = Array.from({ length: 3 }, () =>
      Quotas.bulkWrite(
        [...ids].reverse().map((_id) => ({
          updateOne: { filter: { _id }, update: { $inc: { used: 1000 } } },
        })),
      ),
    );
    await Promise.all([...byId, ...returned, ...acrossAll, ...inBulk]);
    const tallies = await Quotas.find({ _id: { $in: ids } })
      .sort({ _id: 1 })
      .lean();
    expect(tallies.map((tally) => tally.used)).toEqual(ids.map(() => 3346));
  });

  test('when documents keyed by ObjectId are incremented concurrently, then every increment counts', async () => {
    const Scores = db.collection<{ _id: mongoose.Types.ObjectId; n: number }>('scores');
    const ids = [new mongoose.Types.ObjectId(), new mongoose.Types.ObjectId()];
    await Scores.insertMany(ids.map((_id) => ({ _id, n: 0 })));
    await Promise.all(
      ids.flatMap((_id) =>
        Array.from({ length: 25 }, () => Scores.updateOne({ _id }, { $inc: { n: 1 } })),
      ),
    );
    const scores = await Scores.find({ _id: { $in: ids } }).toArray();
    expect(scores.map((score) => score.n)).toEqual([25, 25]);
  });

  test('when one bulk write carries more updates than the database keeps connections, then it completes and the database still answers', async () => {
    // FerretDB 1.24 held every statement's query open until its update command ended, so 50 or
    // more statements in one command waited forever for a connection and froze the whole server.
    const ids = Array.from({ length: 120 }, (_, i) => `bulk-${i}`);
    const result = await Quotas.bulkWrite(
      ids.map((_id) => ({
        updateOne: { filter: { _id }, update: { $inc: { used: 2 } }, upsert: true },
      })),
      { ordered: false },
    );
    expect(result.upsertedCount).toBe(ids.length);
    const again = await Quotas.bulkWrite(
      ids.map((_id) => ({ updateOne: { filter: { _id }, update: { $inc: { used: 1 } } } })),
    );
    expect(again.modifiedCount).toBe(ids.length);
    expect(await Quotas.countDocuments({ _id: { $in: ids }, used: 3 })).toBe(ids.length);
    expect(await db.db!.admin().ping()).toMatchObject({ ok: 1 });
  }, 30_000);

  test('when a filter value holds an operator and sanitizeFilter is on, then it is compared as a literal and matches nothing', async () => {
    await Items.create({ orgId: 30, key: 'secret', rank: 1, label: 'secret' });
    const injected = { orgId: 30, label: { $gt: '' } } as unknown as Partial<Item>;
    // Without sanitizing, the operator matches every label (the attack this rule prevents).
    expect(await Items.countDocuments(injected)).toBe(1);
    expect(await Items.find(injected).setOptions({ sanitizeFilter: true }).lean()).toEqual([]);
    expect(await Items.countDocuments(injected).setOptions({ sanitizeFilter: true })).toBe(0);
  });

  test('when the operator targets a typed string path and sanitizeFilter is on, then mongoose refuses the query with a CastError', async () => {
    const injected = { orgId: 30, key: { $gt: '' } } as unknown as Partial<Item>;
    await expect(
      Items.find(injected).setOptions({ sanitizeFilter: true }).lean(),
    ).rejects.toMatchObject({ name: 'CastError', path: 'key' });
  });
});

// docdb's FerretDB answers some filters in SQL (infra/docdb/patches): `{f: null}`, `{f: {$exists:
// true}}`, `{'f.N': {$exists: true}}` and `_id` equality. These pin MongoDB's answers for the
// shapes those translations must keep, over the values where SQL and MongoDB could disagree.
describe('document database compatibility (filters answered in SQL)', () => {
  const { Long, Double, ObjectId } = mongoose.mongo;

  interface Shaped {
    _id: number;
    tag: string;
    f?: unknown;
  }

  const shapes: Shaped[] = [
    { _id: 1, tag: 'null', f: null },
    { _id: 2, tag: 'missing' },
    { _id: 3, tag: 'array with null', f: [1, null] },
    { _id: 4, tag: 'array', f: [1, 2] },
    { _id: 5, tag: 'empty array', f: [] },
    { _id: 6, tag: 'document', f: { a: 1, '0': 'x' } },
    { _id: 7, tag: 'document with null', f: { a: null } },
    { _id: 8, tag: 'scalar', f: 5 },
    { _id: 9, tag: 'array of documents', f: [{ a: 1 }] },
  ];

  const tagsMatching = async (collection: string, filter: object): Promise<string[]> => {
    const found = await db
      .collection<Shaped>(collection)
      .find(filter, { sort: { _id: 1 } })
      .toArray();
    return found.map((doc) => doc.tag);
  };

  test.each([
    ['{f: null}', { f: null }, ['null', 'missing', 'array with null']],
    [
      '{f: {$exists: true}}',
      { f: { $exists: true } },
      shapes.filter((doc) => doc.tag !== 'missing').map((doc) => doc.tag),
    ],
    ['{f: {$exists: false}}', { f: { $exists: false } }, ['missing']],
    [
      "{'f.0': {$exists: true}}",
      { 'f.0': { $exists: true } },
      ['array with null', 'array', 'document', 'array of documents'],
    ],
    ["{'f.1': {$exists: true}}", { 'f.1': { $exists: true } }, ['array with null', 'array']],
    [
      "{'f.a': {$exists: true}}",
      { 'f.a': { $exists: true } },
      ['document', 'document with null', 'array of documents'],
    ],
    ['{f: null, _id: 3}', { f: null, _id: 3 }, ['array with null']],
  ])(
    'when documents are filtered by %s, then exactly the ones MongoDB matches come back, also when counted',
    async (_name, filter, expected) => {
      const collection = `shapes_${Object.keys(filter).join('_').replace(/\W/g, '')}_${expected.length}`;
      await db.collection<Shaped>(collection).insertMany(shapes);
      expect(await tagsMatching(collection, filter)).toEqual(expected);
      expect(await db.collection<Shaped>(collection).countDocuments(filter)).toBe(expected.length);
    },
  );

  test.each([`it's`, `'); DROP TABLE x; --`, 'ключ', 'a b'])(
    'when documents are filtered on a field named %j, then equality, $ne, null and $exists answer as for any other name',
    async (name) => {
      const Named = db.collection<{ _id: number } & Record<string, unknown>>(
        `named_${Buffer.from(name).toString('hex')}`,
      );
      await Named.insertMany([
        { _id: 1, [name]: 'v', arr: [{ [name]: 1 }] },
        { _id: 2, [name]: 'w' },
        { _id: 3, [name]: null },
        { _id: 4 },
        { _id: 5, [name]: ['v', 'x'] },
      ]);
      const ids = async (filter: object) =>
        (await Named.find(filter, { sort: { _id: 1 } }).toArray()).map((doc) => doc._id);
      expect(await ids({ [name]: 'v' })).toEqual([1, 5]);
      expect(await ids({ [name]: { $eq: 'w' } })).toEqual([2]);
      expect(await ids({ [name]: { $ne: 'v' } })).toEqual([2, 3, 4]);
      expect(await ids({ [name]: null })).toEqual([3, 4]);
      expect(await ids({ [name]: { $exists: true } })).toEqual([1, 2, 3, 5]);
      expect(await ids({ [`${name}.1`]: { $exists: true } })).toEqual([5]);
      expect(await ids({ [`arr.0.${name}`]: 1 })).toEqual([1]);
      expect(await Named.countDocuments({ [name]: 'v', _id: 5 })).toBe(1);
      expect(await Named.updateOne({ [name]: 'w' }, { $set: { seen: true } })).toMatchObject({
        matchedCount: 1,
      });
      expect(await Named.deleteOne({ [name]: null, _id: 4 })).toMatchObject({ deletedCount: 1 });
      expect(await Named.countDocuments({})).toBe(4);
    },
  );

  test('when a filter names a field with a backslash or a double quote, then it matches as MongoDB would', async () => {
    // FerretDB 1.24 cannot store such field names (its JSON encoding refuses them), but a filter
    // may still name them: nothing holds them, so equality finds nothing and null finds all.
    const Plain = db.collection<{ _id: number }>('plain_names');
    await Plain.insertMany([{ _id: 1 }, { _id: 2 }]);
    for (const name of ['back\\slash', 'double"quote', `both\\'"`]) {
      expect(await Plain.find({ [name]: 'v' }).toArray()).toEqual([]);
      expect(await Plain.countDocuments({ [name]: null })).toBe(2);
      expect(await Plain.countDocuments({ [name]: { $exists: true } })).toBe(0);
      expect(await Plain.countDocuments({ [`${name}.0`]: { $exists: true } })).toBe(0);
      expect(await Plain.countDocuments({ [name]: { $ne: 1 } })).toBe(2);
    }
  });

  // One document per kind of _id; for each, the _ids MongoDB takes as equal to it (numbers compare
  // by value across int, long and double) and near misses that must find nothing.
  const when = new Date('2026-11-26T10:00:00.000Z');
  const oid = new ObjectId();
  type IdValue =
    | number
    | string
    | boolean
    | Date
    | InstanceType<typeof ObjectId | typeof Long | typeof Double>
    | { a?: number; b?: string };
  const idKinds: Array<{ tag: string; stored: IdValue; equal: IdValue[]; other: IdValue[] }> = [
    { tag: 'int', stored: 1, equal: [1, new Long(1), new Double(1)], other: ['1', false] },
    { tag: 'long', stored: new Long(2), equal: [2, new Long(2), new Double(2)], other: ['2', 2.5] },
    { tag: 'double', stored: new Double(3), equal: [3, new Long(3), new Double(3)], other: [3.5] },
    { tag: 'fraction', stored: 4.5, equal: [new Double(4.5)], other: [4, 5] },
    { tag: 'string', stored: 'a', equal: ['a'], other: ['A', 'a '] },
    {
      tag: 'objectId',
      stored: oid,
      equal: [new ObjectId(oid.toHexString())],
      other: [new ObjectId(), oid.toHexString()],
    },
    {
      tag: 'date',
      stored: when,
      equal: [new Date(when.getTime())],
      other: [new Date(when.getTime() + 1), when.toISOString(), when.getTime()],
    },
    { tag: 'boolean', stored: true, equal: [true], other: [false] },
    {
      tag: 'document',
      stored: { a: 1, b: 'x' },
      equal: [{ a: 1, b: 'x' }],
      other: [{ b: 'x', a: 1 }, { a: 1 }],
    },
  ];

  test.each(idKinds.map((kind) => [kind.tag, kind] as const))(
    'when a document keyed by a %s _id is found, updated, counted and deleted by _id, then exactly that document is touched',
    async (tag, kind) => {
      type Keyed = { _id: IdValue; tag: string; hits?: number };
      const ById = db.collection<Keyed>(`ids_${tag}`);
      // The driver's filter type cannot take a union of _id kinds; the value is what is tested.
      const byId = (id: IdValue | undefined) => ({ _id: id }) as mongoose.mongo.Filter<Keyed>;
      await ById.insertMany(idKinds.map((k) => ({ _id: k.stored, tag: k.tag })));

      for (const id of kind.equal) {
        expect((await ById.find(byId(id)).toArray()).map((doc) => doc.tag)).toEqual([tag]);
        expect(await ById.countDocuments(byId(id))).toBe(1);
        expect(await ById.updateOne(byId(id), { $inc: { hits: 1 } })).toMatchObject({
          matchedCount: 1,
          modifiedCount: 1,
        });
      }
      for (const id of kind.other) {
        expect(await ById.find(byId(id)).toArray()).toEqual([]);
        expect(await ById.countDocuments(byId(id))).toBe(0);
        expect(await ById.updateOne(byId(id), { $inc: { hits: 100 } })).toMatchObject({
          matchedCount: 0,
        });
        expect(await ById.deleteOne(byId(id))).toMatchObject({ deletedCount: 0 });
      }
      const hits = await ById.find({}, { projection: { _id: 0, tag: 1, hits: 1 } }).toArray();
      expect(hits.filter((doc) => doc.hits !== undefined)).toEqual([
        { tag, hits: kind.equal.length },
      ]);

      expect(await ById.deleteOne(byId(kind.equal[0]))).toMatchObject({ deletedCount: 1 });
      const left = (await ById.find({}).toArray()).map((doc) => doc.tag);
      expect(left.sort()).toEqual(
        idKinds
          .map((k) => k.tag)
          .filter((t) => t !== tag)
          .sort(),
      );
    },
  );
});
