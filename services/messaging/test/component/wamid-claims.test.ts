// A provider message is stored once through its wamid's key (the messages' own unique indexes
// must start with the shard key, so a unique wamid index is not one of them).
import mongoose, { type Connection } from 'mongoose';
import { createMessageStore, type NewMessage } from '../../src/data-access/message-store';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;
let store: ReturnType<typeof createMessageStore>;

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('wamid')}messaging` })
    .asPromise();
  store = createMessageStore(db);
  await store.init();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

const inbound = (id: number, wamid: string): NewMessage =>
  ({
    _id: String(id),
    id,
    company_id: 7,
    contact_id: 1,
    phone: '393470000001',
    direction: 'inbound',
    type: 'text',
    message: 'hi',
    wamid,
    status: 'received',
    error: null,
    status_times: {},
    history: [],
    statuses_seen: [],
    request_json: null,
    raw_json: null,
    idempotency_key: null,
    campaign_id: null,
    quota_month: null,
    lease_until: null,
    created_at: new Date(),
    updated_at: new Date(),
  }) as NewMessage;

test('when one provider message arrives five times at once under different ids, then it is stored once and the others are told it is a duplicate', async () => {
  const outcomes = await Promise.all(
    [1, 2, 3, 4, 5].map((id) => store.insert(inbound(id, 'wamid.same'), [])),
  );
  expect(outcomes.sort()).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'inserted']);
  expect(await db.collection('messages').countDocuments({ wamid: 'wamid.same' })).toBe(1);
  expect((await store.findByWamid('wamid.same'))?.wamid).toBe('wamid.same');
});

test('when a delivery died after claiming the wamid but before storing its message, then a redelivery soon after is retried later and one after the claim has aged stores it once', async () => {
  await db.collection('wamid_keys').insertOne({
    _id: 'wamid.orphan' as never,
    message_id: 100,
    company_id: 7,
    claimed_at: new Date(),
  });
  await expect(store.insert(inbound(101, 'wamid.orphan'), [])).rejects.toThrow(/retried later/);

  await db
    .collection('wamid_keys')
    .updateOne(
      { _id: 'wamid.orphan' as never },
      { $set: { claimed_at: new Date(Date.now() - 120_000) } },
    );
  expect(await store.insert(inbound(102, 'wamid.orphan'), [])).toBe('inserted');
  expect(await store.insert(inbound(103, 'wamid.orphan'), [])).toBe('duplicate');
  expect((await store.findByWamid('wamid.orphan'))?.id).toBe(102);
});

test('when the messages collection still has the unique wamid index of an earlier version, then init replaces it with a plain one', async () => {
  const older = db.useDb(`${db.name}_old`);
  await older.collection('messages').createIndex({ wamid: 1 }, { unique: true });
  const upgraded = createMessageStore(older);
  await upgraded.init();
  const indexes = await older.collection('messages').listIndexes().toArray();
  expect(indexes.find((index) => index.name === 'wamid_1')?.unique).toBeUndefined();
  await older.dropDatabase();
});
