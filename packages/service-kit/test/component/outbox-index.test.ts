import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type Connection } from 'mongoose';
import type { BrokerEvent } from '@switchboard/contracts';
import {
  dropFormerOutboxIndex,
  indexOutbox,
  newOutbox,
  outboxChange,
  outboxSchemaFields,
  outboxSource,
} from '../../src';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('outboxidx')}kit` })
    .asPromise();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

const eventOf = (n: number): BrokerEvent =>
  ({
    id: randomUUID(),
    event: 'message_sent',
    timestamp: new Date().toISOString(),
    company_id: 1,
    data: { n },
  }) as unknown as BrokerEvent;

describe('the outbox index', () => {
  test('when a store that carried the former {pending_ids: 1} index starts, then that index is dropped and the sweep reads from a sparse index on the list’s first element, finding only records with events waiting', async () => {
    const collection = 'outbox_index_records';
    // A store as it was: its outbox indexed by value.
    await db.collection(collection).createIndex({ pending_ids: 1 });
    const schema = new Schema({ _id: String, ...outboxSchemaFields }, { versionKey: false });
    indexOutbox(schema);
    const Records = db.model('OutboxIndexRecord', schema, collection);

    await dropFormerOutboxIndex(Records.collection);
    await Records.init();

    const indexes = await Records.collection.indexes();
    expect(indexes.map((index) => index.name).sort()).toEqual(['_id_', 'pending_ids.0_1']);
    // FerretDB (the local default) accepts `sparse` and does not keep it; MongoDB must.
    const ferretdb = 'ferretdbVersion' in (await db.db!.admin().command({ buildInfo: 1 }));
    expect(indexes.find((index) => index.name === 'pending_ids.0_1')).toMatchObject({
      key: { 'pending_ids.0': 1 },
      ...(ferretdb ? {} : { sparse: true }),
    });

    const waiting = [eventOf(1), eventOf(2)];
    await Records.insertMany([
      { _id: 'waiting', ...newOutbox(waiting) },
      { _id: 'published', ...newOutbox([eventOf(3)]) },
      { _id: 'quiet', ...newOutbox([]) },
    ]);
    const published = await Records.findById('published').lean();
    const clear = outboxChange([], published!.pending_ids);
    await Records.updateOne({ _id: 'published' }, { $unset: clear.unset, $pullAll: clear.pullAll });

    const source = outboxSource(collection, Records);
    const found = await source.withPending(10);
    expect(found.map((record) => record._id)).toEqual(['waiting']);
    expect(found[0]!.events.map((event) => event.id)).toEqual(waiting.map((event) => event.id));

    // Starting again finds nothing more to drop.
    await dropFormerOutboxIndex(Records.collection);
    expect((await Records.collection.indexes()).map((index) => index.name).sort()).toEqual([
      '_id_',
      'pending_ids.0_1',
    ]);
  });
});
