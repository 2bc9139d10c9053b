import mongoose, { type Connection } from 'mongoose';
import { allocateIds, createIdBlocks, nextId } from '../../src';
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

describe('ids handed out from blocks', () => {
  test('when two processes take ids concurrently, then every id is distinct and each takes far fewer counter writes than ids', async () => {
    let writes = 0;
    const counted: typeof allocateIds = (connection, name, count) => {
      writes += 1;
      return allocateIds(connection, name, count);
    };
    const options = { maxBlock: 16, maxAgeMs: 60_000 };
    const a = createIdBlocks(db, 'blocks', options, Date.now, counted);
    const b = createIdBlocks(db, 'blocks', options, Date.now, counted);
    const ids: number[] = [];
    for (let round = 0; round < 10; round++) {
      ids.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b)()))));
    }
    expect(new Set(ids).size).toBe(100);
    expect(writes).toBeLessThan(30);
    // Each process's ids rise in the order it handed them out.
    expect(await a()).toBeGreaterThan(Math.max(...ids.filter((_, i) => i % 2 === 1)) - 16);
  });

  test('when a block grows older than its age limit, then its remaining ids are skipped and the next block is as small as what the old one served', async () => {
    let now = 1_000;
    const next = createIdBlocks(db, 'aging', { maxBlock: 64, maxAgeMs: 500 }, () => now);
    // Used up in time: blocks of 1, 2, 4 (seven ids), then a block of 8.
    const first = await Promise.all(Array.from({ length: 8 }, () => next()));
    expect(first).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    now += 501;
    // 9..15 of the block of 8 are never handed out; the next block is of 1 (what the old one
    // served), then they double again.
    expect(await next()).toBe(16);
    expect(await next()).toBe(17);
    expect(await nextId(db, 'aging')).toBe(19);
  });
});
