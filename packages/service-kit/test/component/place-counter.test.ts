import mongoose, { type Connection } from 'mongoose';
import { createPlaceCounter } from '../../src';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('places')}kit` })
    .asPromise();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

const noneHeld = async () => 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createPlaceCounter', () => {
  test('when many take places at once under a limit, then exactly the limit is granted and counted', async () => {
    const seats = createPlaceCounter(db, { collection: 'seats', field: 'used' });

    const granted = await Promise.all(Array.from({ length: 12 }, () => seats.take(1, 5, noneHeld)));

    expect(granted.filter(Boolean)).toHaveLength(5);
    expect(await seats.taken(1)).toBe(5);
    expect(await db.collection('seats').findOne({ _id: 1 as never })).toEqual({ _id: 1, used: 5 });
  });

  test('when an owner has no counter yet, then it starts from what the owner already holds', async () => {
    const seats = createPlaceCounter(db, { collection: 'seats', field: 'used' });

    expect(await seats.take(2, 4, async () => 3)).toBe(true);
    expect(await seats.take(2, 4, async () => 3)).toBe(false);
    expect(await seats.taken(2)).toBe(4);
    expect(await seats.taken(99)).toBe(0);
  });

  test('when places are given back, then they can be taken again, and the count never goes below zero', async () => {
    const seats = createPlaceCounter(db, { collection: 'seats', field: 'used' });
    await seats.take(3, 1, noneHeld);
    expect(await seats.take(3, 1, noneHeld)).toBe(false);

    await seats.giveBack(3);
    await seats.giveBack(3);

    expect(await seats.taken(3)).toBe(0);
    expect(await seats.take(3, 1, noneHeld)).toBe(true);
  });

  test('when a counter is removed, then the next take makes it again from what the owner holds', async () => {
    const seats = createPlaceCounter(db, { collection: 'seats', field: 'used' });
    await seats.take(6, 10, noneHeld);

    await seats.remove(6);

    expect(await seats.taken(6)).toBe(0);
    expect(await seats.take(6, 10, async () => 7)).toBe(true);
    expect(await seats.taken(6)).toBe(8);
  });

  test('when there is no limit, then every take is granted and still counted, the first ones, made while the counter is being made, included', async () => {
    const seats = createPlaceCounter(db, { collection: 'seats', field: 'used' });
    // Takers arriving one after another while the first is still making the counter: some miss
    // before it exists and look after it does.
    const slowCount = () => new Promise<number>((resolve) => setTimeout(() => resolve(0), 20));
    const granted = await Promise.all(
      Array.from({ length: 30 }, (_, i) => sleep(i).then(() => seats.take(4, null, slowCount))),
    );

    expect(granted.filter((taken) => !taken)).toEqual([]);
    expect(await seats.taken(4)).toBe(30);
  });

  test('when the counter keeps a stamp, then each take and give-back sets it', async () => {
    const contacts = createPlaceCounter(db, {
      collection: 'quotas',
      field: 'count',
      stampField: 'changed_at',
    });
    const before = new Date();
    await contacts.take(5, 10, async () => 2);
    const made = await db.collection('quotas').findOne({ _id: 5 as never });
    expect(made).toMatchObject({ count: 3 });
    expect((made!.changed_at as Date).getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);

    const first = made!.changed_at as Date;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await contacts.giveBack(5);
    const after = await db.collection('quotas').findOne({ _id: 5 as never });
    expect(after).toMatchObject({ count: 2 });
    expect((after!.changed_at as Date).getTime()).toBeGreaterThan(first.getTime());
  });
});
