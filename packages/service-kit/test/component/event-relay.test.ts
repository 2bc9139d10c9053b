import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type Connection } from 'mongoose';
import type { BrokerEvent } from '@switchboard/contracts';
import { createEventRelay, newOutbox, outboxSchemaFields, outboxSource } from '../../src';
import { createLogger } from '../../src/logger';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('relay')}kit` })
    .asPromise();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

const eventOf = (record: number, n: number): BrokerEvent =>
  ({
    id: randomUUID(),
    event: 'message_sent',
    timestamp: new Date(Date.now() + n).toISOString(),
    company_id: 1,
    data: { message_id: record, n },
  }) as unknown as BrokerEvent;

describe('the relay of what writes just stored', () => {
  test('when several writes hand over their events in the same turn, then every event is published once, in order per record, and all are cleared by one write', async () => {
    const Records = db.model(
      'RelayRecord',
      new Schema({ _id: String, ...outboxSchemaFields }, { versionKey: false }),
    );
    const records = Array.from({ length: 12 }, (_, i) => ({
      id: `r${i}`,
      events: [eventOf(i, 0), eventOf(i, 1)],
    }));
    await Records.insertMany(records.map(({ id, events }) => ({ _id: id, ...newOutbox(events) })));

    const source = outboxSource('relay_records', Records);
    let clearingWrites = 0;
    const counted = {
      ...source,
      clear: async (id: string, eventIds: string[]) => {
        clearingWrites += 1;
        await source.clear(id, eventIds);
      },
      clearMany: async (many: { id: string; eventIds: string[] }[]) => {
        clearingWrites += 1;
        await source.clearMany!(many);
      },
    };
    const published: BrokerEvent[] = [];
    const relay = createEventRelay({
      sources: [counted],
      publish: async (event) => {
        published.push(event);
      },
      logger: createLogger('relay-test', 'silent'),
      sweepIntervalMs: 60_000,
      graceMs: 60_000,
    });

    // As the sends of one batched write do: each hands over its own record, in the same turn.
    for (const record of records) relay.relayWrittenSoon(counted, [record]);
    await relay.stop();

    expect(published.map((event) => event.id).sort()).toEqual(
      records.flatMap((record) => record.events.map((event) => event.id)).sort(),
    );
    for (const record of records) {
      const own = published.filter((event) => record.events.some((e) => e.id === event.id));
      expect(own.map((event) => event.id)).toEqual(record.events.map((event) => event.id));
    }
    expect(await source.withPending(100)).toEqual([]);
    expect(clearingWrites).toBe(1);
  });

  test('when a record is being relayed from its stored outbox as its writer hands over the same events, then each event is published once', async () => {
    const Records = db.model(
      'ContestedRecord',
      new Schema({ _id: String, ...outboxSchemaFields }, { versionKey: false }),
    );
    const events = [eventOf(1, 0), eventOf(1, 1)];
    await Records.create({ _id: 'c1', ...newOutbox(events) });
    const source = outboxSource('contested_records', Records);
    const published: string[] = [];
    const relay = createEventRelay({
      sources: [source],
      publish: async (event) => {
        published.push(event.id);
      },
      logger: createLogger('relay-test', 'silent'),
      sweepIntervalMs: 60_000,
      graceMs: 60_000,
    });

    // A status written on the same message relays it by reading its outbox, in the same turn.
    relay.relaySoon(source, 'c1');
    relay.relayWrittenSoon(source, [{ id: 'c1', events }]);
    await relay.stop();

    expect(published).toEqual(events.map((event) => event.id));
    expect(await source.withPending(100)).toEqual([]);
  });
  test('when a writer hands over new events of a record whose earlier handed-over events are still going out, then the new ones follow them in order without a read of the record', async () => {
    const Records = db.model(
      'FollowingRecord',
      new Schema({ _id: String, ...outboxSchemaFields }, { versionKey: false }),
    );
    const first = [eventOf(1, 0), eventOf(1, 1)];
    const second = [eventOf(1, 2)];
    await Records.create({ _id: 'f1', ...newOutbox([...first, ...second]) });
    const source = outboxSource('following_records', Records);
    let reads = 0;
    const counted = {
      ...source,
      pendingOf: async (id: string) => {
        reads += 1;
        return source.pendingOf(id);
      },
    };
    const published: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const relay = createEventRelay({
      sources: [counted],
      publish: async (event) => {
        published.push(event.id);
        // The broker is slow to confirm the first event: the second write's events arrive meanwhile.
        if (event.id === first[0]!.id) await held;
      },
      logger: createLogger('relay-test', 'silent'),
      sweepIntervalMs: 60_000,
      graceMs: 60_000,
    });

    const earlier = relay.relayWritten(counted, [{ id: 'f1', events: first }]);
    const later = relay.relayWritten(counted, [{ id: 'f1', events: second }]);
    release();
    await Promise.all([earlier, later]);
    await relay.stop();

    expect(published).toEqual([...first, ...second].map((event) => event.id));
    expect(reads).toBe(0);
    expect(await source.withPending(100)).toEqual([]);
  });
  test('when several relays of handed-over records finish close together, then their clears share one write, and a relay reading one of them meanwhile publishes nothing again', async () => {
    const Records = db.model(
      'GatheredRecord',
      new Schema({ _id: String, ...outboxSchemaFields }, { versionKey: false }),
    );
    const records = Array.from({ length: 3 }, (_, i) => ({
      id: `g${i}`,
      events: [eventOf(i, 0), eventOf(i, 1)],
    }));
    await Records.insertMany(records.map(({ id, events }) => ({ _id: id, ...newOutbox(events) })));
    const source = outboxSource('gathered_records', Records);
    let clearingWrites = 0;
    const counted = {
      ...source,
      clear: async (id: string, eventIds: string[]) => {
        if (eventIds.length > 0) clearingWrites += 1;
        await source.clear(id, eventIds);
      },
      clearMany: async (many: { id: string; eventIds: string[] }[]) => {
        clearingWrites += 1;
        await source.clearMany!(many);
      },
    };
    const published: string[] = [];
    const relay = createEventRelay({
      sources: [counted],
      publish: async (event) => {
        published.push(event.id);
      },
      logger: createLogger('relay-test', 'silent'),
      sweepIntervalMs: 60_000,
      graceMs: 60_000,
    });

    // As three batched writes finishing close together do: each hands over its own.
    const handedOver = records.map((record) => relay.relayWritten(counted, [record]));
    // A status of the first record's message relays it by reading its outbox.
    relay.relaySoon(counted, 'g0');
    await Promise.all(handedOver);
    await relay.stop();

    expect(published.sort()).toEqual(
      records.flatMap((record) => record.events.map((event) => event.id)).sort(),
    );
    expect(clearingWrites).toBe(1);
    expect(await source.withPending(100)).toEqual([]);
  });
});
