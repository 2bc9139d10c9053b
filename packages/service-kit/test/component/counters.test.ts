import mongoose, { type Connection } from 'mongoose';
import { allocateIds, nextId } from '../../src';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('counters')}kit` })
    .asPromise();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

describe('integer id counters', () => {
  test('when ids are taken concurrently, then every one is distinct and they run 1..n', async () => {
    const ids = await Promise.all(Array.from({ length: 50 }, () => nextId(db, 'messages')));
    expect(new Set(ids).size).toBe(50);
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  test('when a block is allocated, then it follows the last id and the next id follows the block', async () => {
    const first = await nextId(db, 'campaign_recipients');
    const block = await allocateIds(db, 'campaign_recipients', 100);
    expect(block).toBe(first + 1);
    expect(await nextId(db, 'campaign_recipients')).toBe(first + 101);
  });

  test('when counters have different names, then they are independent', async () => {
    const a = await nextId(db, 'a');
    const b = await nextId(db, 'b');
    expect([a, b]).toEqual([1, 1]);
  });
});
