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
});
