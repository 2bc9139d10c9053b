import mongoose, { Schema, type Model } from 'mongoose';
import type { Collection } from 'mongodb';
import type { BrokerEvent } from '@switchboard/contracts';
import { dropIndexIfPresent } from '../mongo';
import { currentTraceCarrier, type TraceCarrier } from '../trace-context';

/**
 * Events waiting to be published, kept on the record they belong to (ARCHITECTURE §6): written in
 * the same single-document write as the change they announce, cleared once the broker confirmed
 * them. Keyed by event id, with the ids in a list the relay can search; clearing one is exact and
 * idempotent (`$unset` of its key, `$pull` of its id), by `_id` alone — the one write the local
 * document database does without reading the whole collection.
 */
export interface OutboxFields {
  pending_events: Record<string, PendingEvent>;
  pending_ids: string[];
}

/**
 * An event as it waits in an outbox: with the trace context of the write that made it (when
 * tracing is on), so that the relay publishes it in that trace, also after a restart.
 */
export type PendingEvent<E extends BrokerEvent = BrokerEvent> = E & {
  trace_context?: TraceCarrier;
};

/** `event` as it is stored: with the active trace context, if there is one. */
export function withTraceContext<E extends BrokerEvent>(event: E): PendingEvent<E> {
  const carrier = currentTraceCarrier();
  return carrier ? { ...event, trace_context: carrier } : event;
}

/** The event to publish and the trace context it was written in. */
export function splitPending<E extends BrokerEvent>(
  pending: PendingEvent<E>,
): { event: E; traceContext: TraceCarrier | undefined } {
  const { trace_context: traceContext, ...event } = pending;
  return { event: event as unknown as E, traceContext };
}

export const outboxSchemaFields = {
  pending_events: { type: Schema.Types.Mixed, default: {} },
  pending_ids: { type: [String], default: [] },
};

/**
 * The index the relays' sweep reads from (`{'pending_ids.0': {$exists: true}}`, see
 * `outboxSource`): sparse on the list's first element, so it holds only the records with events
 * waiting, few at any time, and costs a record nothing once its events are out. A query planner
 * uses an index for the path it is built on: the `{pending_ids: 1}` index records carried before
 * answers `pending_ids` by value, never `pending_ids.0`, so on MongoDB each sweep read the whole
 * collection. Stores drop that one at start (`dropFormerOutboxIndex`).
 */
export function indexOutbox(schema: Schema): void {
  schema.index({ 'pending_ids.0': 1 }, { sparse: true });
}

/** Drops the outbox index no query used (see `indexOutbox`), where a store still has it. */
export function dropFormerOutboxIndex(collection: Parameters<typeof dropIndexIfPresent>[0]) {
  return dropIndexIfPresent(collection, 'pending_ids_1');
}

/** The outbox fields of a new document holding `events`. */
export function newOutbox(events: BrokerEvent[]): OutboxFields {
  return {
    pending_events: Object.fromEntries(events.map((event) => [event.id, withTraceContext(event)])),
    pending_ids: events.map((event) => event.id),
  };
}

/** The `$set` and `$addToSet` parts that add `events` to a document's outbox in an update. */
export function addToOutbox(events: BrokerEvent[]): {
  set: Record<string, PendingEvent>;
  addToSet: { pending_ids: { $each: string[] } } | Record<string, never>;
} {
  return {
    set: Object.fromEntries(
      events.map((event) => [`pending_events.${event.id}`, withTraceContext(event)]),
    ),
    addToSet: events.length > 0 ? { pending_ids: { $each: events.map((event) => event.id) } } : {},
  };
}

/**
 * The parts of an update that add `events` to a record's outbox and take out `cleared`
 * (published events whose clear this write carries, from the relay's takeClears), each part
 * absent when empty. With both, `pending_ids` is set whole (one update cannot add to a list and
 * pull from it): `guard` then holds the write to a record whose pending ids are exactly
 * `cleared`, so that no other pending event is dropped from the list the sweep searches; a
 * record holding others is not written (the caller looks closer, as for any guard that misses).
 */
export function outboxChange(
  events: BrokerEvent[],
  cleared: readonly string[] = [],
): {
  set: Record<string, unknown>;
  unset?: Record<string, ''>;
  addToSet?: { pending_ids: { $each: string[] } };
  pullAll?: { pending_ids: string[] };
  guard?: { pending_ids: { $size: number; $all: string[] } };
} {
  const added = addToOutbox(events);
  const eventIds = events.map((event) => event.id);
  const ids = [...new Set(cleared)];
  if (ids.length === 0) {
    return events.length > 0
      ? { set: added.set, addToSet: { pending_ids: { $each: eventIds } } }
      : { set: {} };
  }
  const unset = Object.fromEntries(
    ids.map((eventId) => [`pending_events.${eventId}`, '' as const]),
  );
  if (events.length === 0) return { set: {}, unset, pullAll: { pending_ids: ids } };
  return {
    set: { ...added.set, pending_ids: eventIds },
    unset,
    guard: { pending_ids: { $size: ids.length, $all: ids } },
  };
}

/** Pending events in the order they were written. */
export function pendingInOrder(doc: Partial<OutboxFields>): PendingEvent[] {
  return Object.values(doc.pending_events ?? {}).sort((a, b) =>
    a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0,
  );
}

/** What the relay needs of one collection whose documents carry an outbox. */
export interface OutboxSource {
  readonly name: string;
  /** Documents with pending events (ids and events only), at most `limit`. */
  withPending(limit: number): Promise<{ _id: string; events: PendingEvent[] }[]>;
  pendingOf(id: string): Promise<PendingEvent[]>;
  /** Clears published events, in one write. */
  clear(id: string, eventIds: string[]): Promise<void>;
  /** Clears the published events of many records, in as few writes as the database allows. */
  clearMany?(records: { id: string; eventIds: string[] }[]): Promise<void>;
}

/**
 * The most statements one bulk write carries, so that one command stays small and one slow
 * statement holds few others back. (docdb's FerretDB is built so that a large update cannot
 * exhaust its connection pool: docs/architecture.md §11.)
 */
export const MAX_BULK_STATEMENTS = 500;

/** A model's collection for the driver's own bulk writes, with the string `_id` we key by. */
export const stringKeyed = (model: Pick<Model<unknown>, 'collection'>) =>
  model.collection as unknown as Collection<{ _id: string }>;

/** `items` in slices of at most `size`. */
export function slices<T>(items: T[], size = MAX_BULK_STATEMENTS): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    out.push(items.slice(start, start + size));
  }
  return out;
}

/** The update that takes `eventIds` out of a record's outbox (exact and idempotent). */
const clearUpdate = (eventIds: string[]) => ({
  $unset: Object.fromEntries(eventIds.map((eventId) => [`pending_events.${eventId}`, '' as const])),
  $pullAll: { pending_ids: eventIds },
});

// Any model whose documents carry an outbox; mongoose's generics do not narrow to that shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function outboxSource(name: string, model: Model<any>): OutboxSource {
  return {
    name,
    async withPending(limit) {
      const docs = await model
        .find({ 'pending_ids.0': mongoose.trusted({ $exists: true }) })
        .limit(limit)
        .lean<(OutboxFields & { _id: string })[]>()
        .exec();
      return docs.map((doc) => ({ _id: doc._id, events: pendingInOrder(doc) }));
    },
    async pendingOf(id) {
      const doc = await model.findById(id).lean<OutboxFields>().exec();
      return doc ? pendingInOrder(doc) : [];
    },
    async clear(id, eventIds) {
      if (eventIds.length === 0) return;
      await model.updateOne({ _id: id }, clearUpdate(eventIds));
    },
    async clearMany(records) {
      const due = records.filter((record) => record.eventIds.length > 0);
      for (const slice of slices(due)) {
        await stringKeyed(model).bulkWrite(
          slice.map((record) => ({
            updateOne: { filter: { _id: record.id }, update: clearUpdate(record.eventIds) },
          })),
          { ordered: false },
        );
      }
    },
  };
}
