import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type Connection } from 'mongoose';
import type { BrokerEvent } from '@switchboard/contracts';
import {
  createEventRelay,
  newOutbox,
  outboxChange,
  outboxSchemaFields,
  outboxSource,
  type EventRelay,
  type EventRelayOptions,
  type OutboxSource,
} from '../../src';
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

/** A collection of records that carry an outbox. */
const recordsNamed = (name: string) =>
  db.model(name, new Schema({ _id: String, ...outboxSchemaFields }, { versionKey: false }));

/** A relay that notes the id of each event it publishes; its sweep and grace never come. */
function notingRelay(sources: OutboxSource[], options: Partial<EventRelayOptions> = {}) {
  const published: string[] = [];
  const relay = createEventRelay({
    sources,
    publish: async (event) => {
      published.push(event.id);
    },
    logger: createLogger('relay-test', 'silent'),
    sweepIntervalMs: 60_000,
    graceMs: 60_000,
    ...options,
  });
  return { relay, published };
}

/** A relay whose sources count their clearing writes. */
function countedRelay(source: OutboxSource, clearWaitMs?: number) {
  const clearingWrites: string[][] = [];
  const counted: OutboxSource = {
    ...source,
    clear: async (id, eventIds) => {
      if (eventIds.length > 0) clearingWrites.push(eventIds);
      await source.clear(id, eventIds);
    },
    clearMany: async (many) => {
      clearingWrites.push(many.flatMap((record) => record.eventIds));
      await source.clearMany!(many);
    },
  };
  return { ...notingRelay([counted], { clearWaitMs }), counted, clearingWrites };
}

describe('the relay of what writes just stored', () => {
  test('when several writes hand over their events in the same turn, then every event is published once, in order per record, and all are cleared by one write', async () => {
    const Records = recordsNamed('RelayRecord');
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
    const Records = recordsNamed('ContestedRecord');
    const events = [eventOf(1, 0), eventOf(1, 1)];
    await Records.create({ _id: 'c1', ...newOutbox(events) });
    const source = outboxSource('contested_records', Records);
    const { relay, published } = notingRelay([source]);

    // A status written on the same message relays it by reading its outbox, in the same turn.
    relay.relaySoon(source, 'c1');
    relay.relayWrittenSoon(source, [{ id: 'c1', events }]);
    await relay.stop();

    expect(published).toEqual(events.map((event) => event.id));
    expect(await source.withPending(100)).toEqual([]);
  });
  test('when a writer hands over new events of a record whose earlier handed-over events are still going out, then the new ones follow them in order without a read of the record', async () => {
    const Records = recordsNamed('FollowingRecord');
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
  test('when a relay reads a record while events its writer handed over gather for company, then those go first and nothing is published twice', async () => {
    const Records = recordsNamed('GatheringRecord');
    const first = eventOf(1, 0);
    const second = eventOf(1, 1);
    await Records.create({ _id: 'g1', ...newOutbox([first, second]) });
    const source = outboxSource('gathering_records', Records);
    const { relay, published } = notingRelay([source], { gatherMs: 60_000 });

    // The first write's event waits for company; the record's next write has its outbox read.
    relay.relayWrittenSoon(source, [{ id: 'g1', events: [first] }]);
    relay.relaySoon(source, 'g1');
    await waitUntil(() => published.length === 2);
    await relay.stop();

    expect(published).toEqual([first.id, second.id]);
    expect(await source.withPending(100)).toEqual([]);
  });
  test('when several relays of handed-over records finish close together, then their clears share one write, and a relay reading one of them meanwhile publishes nothing again', async () => {
    const Records = recordsNamed('GatheredRecord');
    const records = Array.from({ length: 3 }, (_, i) => ({
      id: `g${i}`,
      events: [eventOf(i, 0), eventOf(i, 1)],
    }));
    await Records.insertMany(records.map(({ id, events }) => ({ _id: id, ...newOutbox(events) })));
    const source = outboxSource('gathered_records', Records);
    const { relay, counted, published, clearingWrites } = countedRelay(source);

    // As three batched writes finishing close together do: each hands over its own.
    const handedOver = records.map((record) => relay.relayWritten(counted, [record]));
    // A status of the first record's message relays it by reading its outbox.
    relay.relaySoon(counted, 'g0');
    await Promise.all(handedOver);
    await relay.stop();

    expect(published.sort()).toEqual(
      records.flatMap((record) => record.events.map((event) => event.id)).sort(),
    );
    expect(clearingWrites).toHaveLength(1);
    expect(await source.withPending(100)).toEqual([]);
  });
});

describe('a clear carried by the record’s next write', () => {
  test('when the record is written again while its published events wait to be cleared, then that write clears them and no clearing write of its own follows', async () => {
    const Records = recordsNamed('RiddenRecord');
    const first = [eventOf(1, 0), eventOf(1, 1)];
    await Records.create({ _id: 'n1', ...newOutbox(first) });
    const { relay, counted, published, clearingWrites } = countedRelay(
      outboxSource('ridden_records', Records),
      60_000,
    );
    relay.relayWrittenSoon(counted, [{ id: 'n1', events: first }]);
    await waitUntil(() => published.length === 2);

    // The record's next write (a status with an event of its own) takes the waiting clear along.
    const next = [eventOf(1, 2)];
    const taken = await waitForTaken(relay, counted, 'n1');
    expect(taken.clears.get('n1')).toEqual(first.map((event) => event.id));
    const change = outboxChange(next, taken.clears.get('n1'));
    const { matchedCount } = await Records.collection.updateOne(
      { _id: 'n1' as never, ...change.guard },
      { $set: change.set, $unset: change.unset! },
    );
    expect(matchedCount).toBe(1);
    taken.settle(true);
    relay.relayWrittenSoon(counted, [{ id: 'n1', events: next }]);
    await relay.stop();

    expect(published).toEqual([...first, ...next].map((event) => event.id));
    expect(await outboxSource('ridden_records', Records).withPending(100)).toEqual([]);
    // Only the last event's clear was written alone (at stop: nothing else came to carry it).
    expect(clearingWrites).toEqual([next.map((event) => event.id)]);
  });

  test('when the record holds another pending event, then the carrying write with new events matches nothing, and the clear is written alone with the other event kept', async () => {
    const Records = recordsNamed('GuardedRecord');
    const first = [eventOf(2, 0)];
    const stray = eventOf(2, 1);
    await Records.create({ _id: 'm1', ...newOutbox([...first, stray]) });
    const { relay, counted, published, clearingWrites } = countedRelay(
      outboxSource('guarded_records', Records),
      60_000,
    );
    // Only the first event was handed over by its writer; the stray one waits for the sweep.
    relay.relayWrittenSoon(counted, [{ id: 'm1', events: first }]);
    await waitUntil(() => published.length === 1);
    const taken = await waitForTaken(relay, counted, 'm1');
    const change = outboxChange([eventOf(2, 2)], taken.clears.get('m1'));
    const { matchedCount } = await Records.collection.updateOne(
      { _id: 'm1' as never, ...change.guard },
      { $set: change.set, $unset: change.unset! },
    );
    expect(matchedCount).toBe(0);
    taken.settle(false);
    await relay.stop();

    expect(clearingWrites).toEqual([first.map((event) => event.id)]);
    const left = await outboxSource('guarded_records', Records).pendingOf('m1');
    expect(left.map((event) => event.id)).toEqual([stray.id]);
  });

  test('when nothing comes to carry a clear, then it is written alone once its wait is over', async () => {
    const Records = recordsNamed('UncarriedRecord');
    const events = [eventOf(3, 0)];
    await Records.create({ _id: 'u1', ...newOutbox(events) });
    const source = outboxSource('uncarried_records', Records);
    const { relay, counted, clearingWrites } = countedRelay(source, 300);
    relay.relayWrittenSoon(counted, [{ id: 'u1', events }]);
    // Written alone by the relay itself (stop would write it too, so it is not called first).
    for (let tries = 0; (await source.withPending(100)).length > 0; tries++) {
      if (tries > 500) throw new Error('the clear was never written');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(clearingWrites).toEqual([events.map((event) => event.id)]);
    await relay.stop();
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The record's waiting clear, taken once its publish was confirmed and the clear handed on. */
async function waitForTaken(relay: EventRelay, source: OutboxSource, id: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const taken = relay.takeClears(source, [id]);
    if (taken.clears.has(id)) return taken;
    taken.settle(true);
    if (Date.now() > deadline) throw new Error(`no waiting clear of ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
