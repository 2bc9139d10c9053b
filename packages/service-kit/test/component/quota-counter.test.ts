import mongoose, { type Connection } from 'mongoose';
import { createQuotaCounter } from '../../src';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;

beforeAll(async () => {
  db = await mongoose
    // Commands are monitored for the test that counts the writes of holds and settlements.
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('quota')}kit`, monitorCommands: true })
    .asPromise();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MONTH = '2026-11';

describe('createQuotaCounter, one counter per owner', () => {
  test('when many take places at once under a limit, then exactly the limit is granted and counted', async () => {
    const seats = createQuotaCounter(db, { collection: 'seats' });

    const granted = await Promise.all(
      Array.from({ length: 12 }, () => seats.take({ owner: 1 }, 5)),
    );

    expect(granted.filter(Boolean)).toHaveLength(5);
    expect(await seats.usage({ owner: 1 })).toBe(5);
    expect(await db.collection('seats').findOne({ _id: 1 as never })).toEqual({ _id: 1, used: 5 });
  });

  test('when an owner has no counter yet, then it starts from what the owner already holds', async () => {
    const seats = createQuotaCounter(db, { collection: 'seats' });
    const countHeld = async () => 3;

    expect(await seats.take({ owner: 2 }, 4, { countHeld })).toBe(true);
    expect(await seats.take({ owner: 2 }, 4, { countHeld })).toBe(false);
    expect(await seats.usage({ owner: 2 })).toBe(4);
    expect(await seats.usage({ owner: 99 })).toBe(0);
  });

  test('when places are given back, then they can be taken again, and the count never goes below zero', async () => {
    const seats = createQuotaCounter(db, { collection: 'seats' });
    await seats.take({ owner: 3 }, 1);
    expect(await seats.take({ owner: 3 }, 1)).toBe(false);

    expect(await seats.giveBack({ owner: 3 })).toBe(1);
    expect(await seats.giveBack({ owner: 3 })).toBe(0);

    expect(await seats.usage({ owner: 3 })).toBe(0);
    expect(await seats.take({ owner: 3 }, 1)).toBe(true);
  });

  test('when a counter is removed, then the next take makes it again from what the owner holds', async () => {
    const seats = createQuotaCounter(db, { collection: 'seats' });
    await seats.take({ owner: 6 }, 10);

    await seats.remove({ owner: 6 });

    expect(await seats.usage({ owner: 6 })).toBe(0);
    expect(await seats.take({ owner: 6 }, 10, { countHeld: async () => 7 })).toBe(true);
    expect(await seats.usage({ owner: 6 })).toBe(8);
  });

  test('when there is no limit, then every take is granted and still counted, the first ones, made while the counter is being made, included', async () => {
    const seats = createQuotaCounter(db, { collection: 'seats' });
    // Takers arriving one after another while the first is still making the counter: some miss
    // before it exists and look after it does.
    const countHeld = () => new Promise<number>((resolve) => setTimeout(() => resolve(0), 20));
    const granted = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        sleep(i).then(() => seats.take({ owner: 4 }, null, { countHeld })),
      ),
    );

    expect(granted.filter((taken) => !taken)).toEqual([]);
    expect(await seats.usage({ owner: 4 })).toBe(30);
  });

  test('when places are held on counters without a month, then those a crash left are listed with their owner', async () => {
    const seats = createQuotaCounter(db, { collection: 'held_seats' });
    const old = new Date(Date.now() - 60_000);
    await seats.hold({ owner: 7 }, 3, 'invite:1', old);
    await seats.hold({ owner: 8 }, 3, 'invite:2');
    await seats.take({ owner: 9 }, 3);

    expect(await seats.heldBefore(new Date(Date.now() - 30_000))).toEqual([
      { at: { owner: 7 }, name: 'invite:1', heldAt: old },
    ]);
  });

  test('when the counter keeps a stamp and its own field, then each take and give-back sets the stamp', async () => {
    const contacts = createQuotaCounter(db, {
      collection: 'quotas',
      field: 'count',
      stampField: 'changed_at',
    });
    const before = new Date();
    await contacts.take({ owner: 5 }, 10, { countHeld: async () => 2 });
    const made = await db.collection('quotas').findOne({ _id: 5 as never });
    expect(made).toMatchObject({ count: 3 });
    expect((made!.changed_at as Date).getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);

    const first = made!.changed_at as Date;
    await sleep(5);
    await contacts.giveBack({ owner: 5 });
    const after = await db.collection('quotas').findOne({ _id: 5 as never });
    expect(after).toMatchObject({ count: 2 });
    expect((after!.changed_at as Date).getTime()).toBeGreaterThan(first.getTime());
  });
});

describe('createQuotaCounter, one counter per owner and month', () => {
  const monthly = () => createQuotaCounter(db, { collection: 'monthly', period: 'month' });

  test('when places are taken in two months, then each month counts its own under `<owner>:<month>`', async () => {
    const quota = monthly();

    expect(await quota.take({ owner: 1, month: '2026-10' }, 2, { count: 2 })).toBe(true);
    expect(await quota.take({ owner: 1, month: '2026-10' }, 2)).toBe(false);
    expect(await quota.take({ owner: 1, month: MONTH }, 2)).toBe(true);

    expect(await quota.usage({ owner: 1, month: '2026-10' })).toBe(2);
    expect(await quota.usage({ owner: 1, month: MONTH })).toBe(1);
    expect(await db.collection('monthly').findOne({ _id: `1:${MONTH}` as never })).toEqual({
      _id: `1:${MONTH}`,
      month: MONTH,
      used: 1,
    });
  });

  test('when many take several places at once, then none is granted past the limit and a refused take takes nothing', async () => {
    const quota = monthly();
    const at = { owner: 2, month: MONTH };

    const granted = await Promise.all(
      Array.from({ length: 10 }, () => quota.take(at, 10, { count: 3 })),
    );

    expect(granted.filter(Boolean)).toHaveLength(3);
    expect(await quota.usage(at)).toBe(9);
    expect(await quota.take(at, 10, { count: 11 })).toBe(false);
    expect(await quota.giveBack(at, 10)).toBe(0);
    expect(await quota.giveBack(at, 9)).toBe(9);
  });

  test('when a reservation is asked twice and given back twice, then it takes its places once and gives them back once', async () => {
    const quota = monthly();
    const at = { owner: 3, month: MONTH };
    await quota.take(at, 10, { count: 2 });

    const twice = await Promise.all([
      quota.reserve(at, 10, 'start:1', 5),
      quota.reserve(at, 10, 'start:1', 5),
    ]);
    expect(twice).toEqual([true, true]);
    expect(await quota.usage(at)).toBe(7);
    expect(await quota.reserve(at, 10, 'start:2', 4)).toBe(false);

    expect(await quota.release(at, 'start:1')).toBe(5);
    expect(await quota.release(at, 'start:1')).toBe(0);
    expect(await quota.release(at, 'never-held')).toBe(0);
    expect(await quota.usage(at)).toBe(2);
  });

  test('when many sends hold places at once near the limit, then exactly the limit is held, each under its name', async () => {
    const quota = monthly();
    const at = { owner: 4, month: MONTH };
    const names = Array.from({ length: 40 }, (_, i) => `message:${i}`);

    const granted = await Promise.all(names.map((name) => quota.hold(at, 25, name)));

    expect(granted.filter(Boolean)).toHaveLength(25);
    const counter = await db.collection('monthly').findOne({ _id: `4:${MONTH}` as never });
    expect(counter!.used).toBe(25);
    const heldNames = names.filter((_, i) => granted[i]);
    expect(Object.keys(counter!.holds as object).sort()).toEqual(heldNames.sort());
  });

  test('when a hold is asked again under its name, then the place stands and nothing more is taken', async () => {
    const quota = monthly();
    const at = { owner: 5, month: MONTH };

    expect(await quota.hold(at, 1, 'message:1')).toBe(true);
    expect(await quota.hold(at, 1, 'message:1')).toBe(true);
    expect(await quota.hold(at, 1, 'message:2')).toBe(false);
    expect(await quota.usage(at)).toBe(1);
  });

  test('when holds are settled, then the places stay taken and the names go, with the next holds in the same write', async () => {
    const quota = monthly();
    const at = { owner: 6, month: MONTH };
    await Promise.all(['a', 'b', 'c'].map((name) => quota.hold(at, null, name)));
    const commands: string[] = [];
    const listen = (event: { commandName: string }) => commands.push(event.commandName);
    const client = db.getClient();
    client.on('commandStarted', listen);
    try {
      // A settlement and holds asked while a write is in flight share the next write.
      const first = quota.hold(at, null, 'd');
      const together = [quota.settle(at, 'a'), quota.settle(at, 'b'), quota.hold(at, null, 'e')];
      await Promise.all([first, ...together]);
    } finally {
      client.off('commandStarted', listen);
    }

    expect(commands).toEqual(['update', 'update']);
    const counter = await db.collection('monthly').findOne({ _id: `6:${MONTH}` as never });
    expect(counter!.used).toBe(5);
    expect(Object.keys(counter!.holds as object).sort()).toEqual(['c', 'd', 'e']);
  });

  test('when a hold is settled with no write in flight, then its name waits for the next hold and goes in the same write', async () => {
    const quota = monthly();
    const at = { owner: 16, month: MONTH };
    await quota.hold(at, null, 'a');
    const commands: string[] = [];
    const listen = (event: { commandName: string }) => commands.push(event.commandName);
    const client = db.getClient();
    client.on('commandStarted', listen);
    try {
      const settled = quota.settle(at, 'a');
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([settled, quota.hold(at, null, 'b')]);
    } finally {
      client.off('commandStarted', listen);
    }

    expect(commands).toEqual(['update']);
    const counter = await db.collection('monthly').findOne({ _id: `16:${MONTH}` as never });
    expect(counter!.used).toBe(2);
    expect(Object.keys(counter!.holds as object)).toEqual(['b']);
  });

  test('when a hold is settled and no other hold comes, then its name still goes, on its own', async () => {
    const quota = monthly();
    const at = { owner: 17, month: MONTH };
    await quota.hold(at, null, 'alone');
    await quota.settle(at, 'alone');

    const counter = await db.collection('monthly').findOne({ _id: `17:${MONTH}` as never });
    expect(counter!.used).toBe(1);
    expect(Object.keys(counter!.holds as object)).toEqual([]);
  });

  test('when a held place is given back, then it goes back once, and a settled one never', async () => {
    const quota = monthly();
    const at = { owner: 7, month: MONTH };
    await quota.hold(at, 2, 'kept');
    await quota.hold(at, 2, 'dropped');
    await quota.settle(at, 'kept');

    expect(await quota.giveBackHold(at, 'dropped')).toBe(true);
    expect(await quota.giveBackHold(at, 'dropped')).toBe(false);
    expect(await quota.giveBackHold(at, 'kept')).toBe(false);
    expect(await quota.usage(at)).toBe(1);
  });

  test('when a hold is moved to a new name, then the old name can no longer give the place back', async () => {
    const quota = monthly();
    const at = { owner: 8, month: MONTH };
    await quota.hold(at, 1, 'producer');

    expect(await quota.moveHold(at, 'producer', 'message:9')).toBe(true);
    expect(await quota.moveHold(at, 'producer', 'message:9')).toBe(false);
    expect(await quota.giveBackHold(at, 'producer')).toBe(false);
    expect(await quota.usage(at)).toBe(1);
    expect(await quota.giveBackHold(at, 'message:9')).toBe(true);
  });

  test('when a process dies holding places, then the holds older than a moment are listed for the recovery, of that month only', async () => {
    const quota = monthly();
    await quota.init();
    const old = new Date(Date.now() - 60_000);
    await quota.hold({ owner: 9, month: MONTH }, null, 'message:1', old);
    await quota.hold({ owner: 10, month: MONTH }, null, 'message:2', old);
    await quota.hold({ owner: 9, month: MONTH }, null, 'message:3');
    await quota.hold({ owner: 9, month: '2026-12' }, null, 'message:4', old);

    const held = await quota.heldBefore(new Date(Date.now() - 30_000), MONTH);

    expect(held.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { at: { owner: 9, month: MONTH }, name: 'message:1', heldAt: old },
      { at: { owner: 10, month: MONTH }, name: 'message:2', heldAt: old },
    ]);
  });

  test('when a name could make another field path, then the call is refused and nothing is taken', async () => {
    const quota = monthly();
    const at = { owner: 11, month: MONTH };

    await expect(quota.hold(at, null, 'a.b')).rejects.toThrow('no hold or reservation name');
    await expect(quota.reserve(at, null, '$set', 2)).rejects.toThrow('no hold or reservation name');
    expect(await quota.usage(at)).toBe(0);
  });
});
