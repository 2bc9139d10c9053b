import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { createSecretBox, createLogger, startFieldReseal } from '../../src';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('reseal')}kit` })
    .asPromise();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

const key = (kid: string) => ({ kid, key: randomBytes(32) });

test('when two replicas start after a key rotation, then every value sealed with the older key is re-sealed with the new one exactly once, a value under an unknown key is left alone, and everything opens', async () => {
  const older = key('older');
  const newer = key('newer');
  const lost = key('lost');
  const before = createSecretBox({ current: older });
  const after = createSecretBox({ current: newer, others: [older] });
  const collection = db.collection('secrets');
  const plain = Array.from(
    { length: 20 },
    (_, i) => `whsec_${i}_${randomBytes(8).toString('hex')}`,
  );
  await collection.insertMany([
    ...plain.map((secret, i) => ({ _id: i as never, secret_sealed: before.seal(secret) })),
    { _id: 100 as never, secret_sealed: createSecretBox({ current: lost }).seal('gone') },
    { _id: 101 as never, secret_sealed: null },
  ]);

  const logs: string[] = [];
  const logger = createLogger('kit', 'info', { write: (line: string) => logs.push(line) });
  const options = { db, collection: 'secrets', field: 'secret_sealed', box: after, logger };
  const jobs = await Promise.all([
    startFieldReseal({ ...options, everyMs: 3_600_000 }),
    startFieldReseal({ ...options, everyMs: 3_600_000 }),
  ]);
  await Promise.all(jobs.map((job) => job.stop()));

  const stored = await collection.find().sort({ _id: 1 }).toArray();
  for (const [i, secret] of plain.entries()) {
    expect(stored[i]!.secret_sealed).toMatch(/^v2\.newer\./);
    expect(after.open(stored[i]!.secret_sealed as string)).toBe(secret);
  }
  expect(stored[20]!.secret_sealed).toMatch(/^v2\.lost\./);
  expect(stored[21]!.secret_sealed).toBeNull();
  const resealed = logs
    .map((line) => JSON.parse(line) as { msg: string; resealed?: number; unreadable?: number })
    .filter((line) => line.msg === 'secrets re-sealed with the current key');
  expect(resealed.reduce((sum, line) => sum + (line.resealed ?? 0), 0)).toBe(20);
  expect(logs.some((line) => line.includes('secrets sealed with a key no longer configured'))).toBe(
    true,
  );
});
