import { randomBytes } from 'node:crypto';
import mongoose, { Schema, type Connection } from 'mongoose';
import { BatchInserter } from '../../src/data-access/batch-inserter';
import { MONGODB_URL } from '../../../../test/support/test-infra';

interface Row {
  _id: string;
  n: number;
}

const rowSchema = new Schema<Row>(
  { _id: String, n: Number },
  { collection: 'rows', versionKey: false, _id: false },
);

let db: Connection;
const inserts: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  // The connection's write concern as production sets it in the URL.
  const url = new URL(MONGODB_URL);
  url.pathname = `/wh_batch_${randomBytes(4).toString('hex')}`;
  url.searchParams.set('w', 'majority');
  url.searchParams.set('journal', 'true');
  db = await mongoose.createConnection(url.toString(), { monitorCommands: true }).asPromise();
  db.getClient().on('commandStarted', (event) => {
    if (event.commandName === 'insert') inserts.push(event.command);
  });
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

describe('batched inserts', () => {
  test('when rows arrive together, then they go in one insert with the write concern of the connection, and a repeated _id is told apart from the rows that went in', async () => {
    const Rows = db.model<Row>('Row', rowSchema);
    await Rows.init();
    await Rows.collection.insertOne({ _id: 'a', n: 0 } as never);
    inserts.length = 0;
    const inserter = new BatchInserter(Rows, { windowMs: 5 });

    const outcomes = await Promise.all(
      ['a', 'b', 'c'].map((_id, n) => inserter.insert({ _id, n: n + 1 })),
    );

    expect(outcomes).toEqual(['duplicate', 'inserted', 'inserted']);
    expect(inserts).toHaveLength(1);
    expect(inserts[0]).toMatchObject({ ordered: false, writeConcern: { w: 'majority', j: true } });
    const stored = await Rows.find().sort({ _id: 1 }).lean();
    expect(stored).toEqual([
      { _id: 'a', n: 0 },
      { _id: 'b', n: 2 },
      { _id: 'c', n: 3 },
    ]);
  });

  test('when rows arrive while an insert is under way, then they wait for it and go together in the next insert, not one insert each', async () => {
    const Rows = db.model<Row>('Row', rowSchema);
    await Rows.init();
    inserts.length = 0;
    // The first command is held before it reaches the database until the test lets it go, so
    // the rows after it certainly arrive while it is under way.
    const driverDb = db.db!;
    const command = driverDb.command.bind(driverDb);
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let commands = 0;
    driverDb.command = (async (...args: Parameters<typeof command>) => {
      if (commands++ === 0) await held;
      return command(...args);
    }) as typeof driverDb.command;
    const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 5));
    try {
      const inserter = new BatchInserter(Rows, { windowMs: 0, maxInFlight: 1 });
      const first = inserter.insert({ _id: 'held', n: 1 });
      await nextTurn();
      const later = [inserter.insert({ _id: 'x', n: 2 })];
      await nextTurn();
      later.push(inserter.insert({ _id: 'y', n: 3 }));
      await nextTurn();
      letGo();

      expect(await Promise.all([first, ...later])).toEqual(['inserted', 'inserted', 'inserted']);
    } finally {
      driverDb.command = command;
    }
    expect(inserts.map((insert) => (insert.documents as Row[]).map((row) => row._id))).toEqual([
      ['held'],
      ['x', 'y'],
    ]);
  });
});
