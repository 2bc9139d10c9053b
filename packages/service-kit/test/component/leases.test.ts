import mongoose, { type Connection } from 'mongoose';
import {
  LEASE_COLLECTION,
  LEASE_TAKEOVER_BOUND_MS,
  createLeases,
  createLogger,
  startPeriodicJob,
  type Leases,
} from '../../src';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = createLogger('kit', 'silent');
let db: Connection;
const started: Leases[] = [];

const TIMING = { ttlMs: 1_500, renewEveryMs: 500, marginMs: 500 };

/** A replica's leases, on the shared connection or on one of its own (which a test may cut). */
function replica(connection = db) {
  const leases = createLeases({ db: connection, service: 'kit', logger, timing: TIMING });
  started.push(leases);
  return { leases };
}

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('leases')}kit` })
    .asPromise();
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((leases) => leases.stop()));
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

test('when eight replicas ask for one lease at once, then exactly one holds it and the lease document names it', async () => {
  const replicas = Array.from({ length: 8 }, () => replica().leases);
  const answers = await Promise.all(replicas.map((leases) => leases.hold('race')));
  expect(answers.filter(Boolean)).toHaveLength(1);
  const winner = replicas[answers.indexOf(true)]!;
  const stored = await db.collection(LEASE_COLLECTION).findOne({ _id: 'race' as never });
  expect(stored?.holder).toBe(winner.holder);
  // Asked again, the holder keeps it and nobody else gets it.
  const again = await Promise.all(replicas.map((leases) => leases.hold('race')));
  expect(again).toEqual(answers);
});

test('when the holder dies without giving the lease up, then another replica takes it once it has expired, and not before', async () => {
  const own = await mongoose.createConnection(MONGODB_URL, { dbName: db.name }).asPromise();
  const first = replica(own);
  const second = replica();
  expect(await first.leases.hold('takeover')).toBe(true);
  const killedAt = Date.now();
  expect(await second.leases.hold('takeover')).toBe(false);
  // The holder's process is gone: its connection closes, nothing renews the lease any more.
  await own.close();
  const bound = TIMING.ttlMs + TIMING.renewEveryMs;
  let taken = false;
  while (!taken && Date.now() - killedAt < bound + 1_000) {
    await sleep(50);
    taken = second.leases.holds('takeover');
  }
  const takenAfterMs = Date.now() - killedAt;
  expect(taken).toBe(true);
  // Not before the lease's own expiry: a holder that is only slow keeps it that long.
  expect(takenAfterMs).toBeGreaterThanOrEqual(TIMING.ttlMs - 100);
  expect(LEASE_TAKEOVER_BOUND_MS).toBe(20_000);
  const stored = await db.collection(LEASE_COLLECTION).findOne({ _id: 'takeover' as never });
  expect(stored?.holder).toBe(second.leases.holder);
});

test('when the holder stops gracefully, then it gives the lease up and another replica takes it at once', async () => {
  const first = replica();
  const second = replica();
  expect(await first.leases.hold('handover')).toBe(true);
  expect(await second.leases.hold('handover')).toBe(false);
  await first.leases.stop();
  expect(await second.leases.hold('handover')).toBe(true);
});

test('when two replicas run the same periodic job, then only the lease holder runs it, and the other runs it once the holder has stopped', async () => {
  const runs: Record<string, number> = { a: 0, b: 0 };
  const a = replica();
  const b = replica();
  const job = (name: 'a' | 'b', leases: Leases) =>
    startPeriodicJob({
      name: 'sweep',
      everyMs: 50,
      firstAfterMs: 0,
      logger,
      leases,
      run: async () => {
        runs[name]! += 1;
      },
    });
  const jobA = job('a', a.leases);
  await sleep(100);
  const jobB = job('b', b.leases);
  while (runs.a! < 10) await sleep(20);
  expect(runs.b).toBe(0);

  await jobA.stop();
  await a.leases.stop();
  while (runs.b! < 3) await sleep(20);
  await jobB.stop();
  expect(runs.b).toBeGreaterThanOrEqual(3);
});
