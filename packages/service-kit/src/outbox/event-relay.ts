import type { BrokerEvent } from '@switchboard/contracts';
import { createBatcher, type Batcher } from '../batcher';
import type { Leases } from '../leases';
import type { Logger } from '../logger';
import { jobRunCounter } from '../periodic-job';
import { runInTraceContext } from '../trace-context';
import { splitPending, type OutboxSource } from './event-outbox';

export interface EventRelayOptions {
  sources: OutboxSource[];
  /** Resolves once the broker has confirmed the event. */
  publish: (event: BrokerEvent) => Promise<void>;
  logger: Logger;
  /** How often records are searched for events a write left behind. */
  sweepIntervalMs: number;
  /** Events younger than this are left to the write that stored them. */
  graceMs: number;
  sweepBatch?: number;
  /**
   * With several replicas: only the holder of the `event-relay` lease sweeps, so that two
   * replicas never publish the same left-behind events at once. Each replica still relays what
   * its own writes just stored.
   */
  leases?: Leases;
}

/**
 * How long the clear of published events waits for others of the same source to share its
 * write. Nothing waits for a clear but a relay that reads the record's outbox (rare: a sweep, a
 * record a write did not hand over), which waits for it, so that it does not publish again what
 * went out already.
 */
const CLEAR_GATHER_MS = 100;

/** The lease a service's outbox sweep runs under. */
export const EVENT_RELAY_LEASE = 'event-relay';

/**
 * The outbox relay (ARCHITECTURE §6): publishes each pending event of a record, then clears it.
 * An event is cleared only after the broker confirmed it, so a crash in between publishes it
 * again (at least once; consumers deduplicate on the event id, which is the message id). Right
 * after a write its events go out at once; a periodic sweep picks up what a failed publish or a
 * dead process left. Each event is published in the trace context stored with it.
 */
export function createEventRelay(options: EventRelayOptions) {
  const log = options.logger.child({ component: 'event-relay' });
  // One relay at a time per record, so that its events go out in order.
  const chains = new Map<string, Promise<void>>();
  /** Relays waiting or running per record that read its outbox (rather than publish what they hold). */
  const reading = new Map<string, number>();
  /** Relays of handed-over records until their clear is written (stop waits for them). */
  const handing = new Set<Promise<void>>();
  /** Clears of published events not written yet, per record: a relay reading it waits for them. */
  const clearing = new Map<string, Promise<void>>();
  /** Per source with `clearMany`: published events' clears, many records per write. */
  const clearBatches = new Map<OutboxSource, Batcher<{ id: string; eventIds: string[] }, void>>();
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  let stopped = false;
  const countSweep = jobRunCounter(EVENT_RELAY_LEASE);
  /** Records written in this turn of the event loop, per source, relayed together at its end. */
  const gathering = new Map<OutboxSource, { id: string; events: BrokerEvent[] }[]>();
  let gathered: Promise<void> | undefined;

  async function relayRecord(source: OutboxSource, id: string): Promise<void> {
    const published: string[] = [];
    try {
      for (const pending of await source.pendingOf(id)) {
        // In the trace of the write that stored it, whenever and by whichever process it goes out.
        const { event, traceContext } = splitPending(pending);
        await runInTraceContext(traceContext, () => options.publish(event));
        published.push(event.id);
      }
    } finally {
      // One write clears what the broker confirmed, also when a later publish failed.
      await source.clear(id, published);
    }
  }

  /**
   * Publishes the events a batch of writes just stored on many records, and clears them in as few
   * writes as the database allows: no read of what the writer already holds. Each record's events
   * go out in order, after whatever relay of that record is already running; all are published
   * before any is cleared, so a crash in between leaves them for the sweep (published twice, never
   * lost). Events that could not be published stay for the sweep.
   */
  function relayWritten(
    source: OutboxSource,
    records: { id: string; events: BrokerEvent[] }[],
  ): Promise<void> {
    const keys = records.map((record) => `${source.name}:${record.id}`);
    // A record that a relay reading its outbox is waiting for or working on may have had these
    // very events published and cleared by it: that one is read again, not trusted. One that only
    // relays of what other writes handed over are working on is not (they publish only their
    // own events): these go after theirs, in order, without a read.
    const contested = new Set(records.filter((_, index) => reading.has(keys[index]!)));
    const before = Promise.all(keys.map((key) => chains.get(key)));
    const run = before.then(async () => {
      await Promise.all(
        [...contested].map(async (record) => {
          await clearing.get(`${source.name}:${record.id}`);
          await relayRecord(source, record.id);
        }),
      );
      const trusted = records.filter((record) => !contested.has(record));
      // Sent in order on one channel; confirms are awaited together.
      const outcomes = await Promise.all(
        trusted.map((record) =>
          Promise.allSettled(record.events.map((event) => options.publish(event))),
        ),
      );
      const published = trusted.map((record, index) => ({
        id: record.id,
        eventIds: record.events
          .filter((_, position) => outcomes[index]![position]!.status === 'fulfilled')
          .map((event) => event.id),
      }));
      const failed = published.some((record, index) => {
        return record.eventIds.length < trusted[index]!.events.length;
      });
      if (failed) log.warn({ source: source.name }, 'events not published yet; will retry');
      return published;
    });
    // The record's next relay of handed-over events goes once these are published; their clear
    // follows apart (see clearLater), so that it does not hold the record's next events.
    // Their clear is handed on before the record is let go, so that a relay reading it next
    // always finds the clear to wait for.
    let cleared: Promise<void> = Promise.resolve();
    const publishedAll = run.then(
      (published) => {
        cleared = clearLater(source, published);
      },
      (error: unknown) => {
        log.warn({ err: error, source: source.name }, 'events not published yet; will retry');
      },
    );
    const settled = publishedAll.then(() => cleared);
    handing.add(settled);
    void settled.then(() => handing.delete(settled));
    for (const key of keys) chains.set(key, publishedAll);
    void publishedAll.then(() => {
      for (const key of keys) if (chains.get(key) === publishedAll) chains.delete(key);
    });
    return settled;
  }

  /**
   * Clears published events of handed-over records: with `clearMany`, gathered with other
   * records' of the source for `CLEAR_GATHER_MS` into one write. A failed clear leaves the events
   * for the sweep (published again, never lost).
   */
  function clearLater(
    source: OutboxSource,
    published: { id: string; eventIds: string[] }[],
  ): Promise<void> {
    const due = published.filter((record) => record.eventIds.length > 0);
    if (due.length === 0) return Promise.resolve();
    const clearMany = source.clearMany?.bind(source);
    let batches = clearBatches.get(source);
    if (!batches && clearMany) {
      batches = createBatcher({
        maxItems: 500,
        maxWaitMs: CLEAR_GATHER_MS,
        run: async (records) => {
          await clearMany(records);
          return records.map(() => undefined);
        },
      });
      clearBatches.set(source, batches);
    }
    const held = batches;
    const done = (
      held
        ? Promise.all(due.map((record) => held.add(record))).then(() => undefined)
        : (async () => {
            for (const record of due) await source.clear(record.id, record.eventIds);
          })()
    ).catch((error: unknown) => {
      log.warn({ err: error, source: source.name }, 'published events not cleared yet');
    });
    const keys = due.map((record) => `${source.name}:${record.id}`);
    for (const key of keys) {
      const previous = clearing.get(key);
      clearing.set(key, previous ? Promise.all([previous, done]).then(() => undefined) : done);
    }
    const mine = new Map(keys.map((key) => [key, clearing.get(key)]));
    void done.then(() => {
      for (const key of keys) if (clearing.get(key) === mine.get(key)) clearing.delete(key);
    });
    return done;
  }

  function enqueue(source: OutboxSource, id: string): Promise<void> {
    const key = `${source.name}:${id}`;
    reading.set(key, (reading.get(key) ?? 0) + 1);
    const next = (chains.get(key) ?? Promise.resolve())
      .then(() => clearing.get(key))
      .then(() => relayRecord(source, id))
      .catch((error: unknown) => {
        log.warn({ err: error, source: source.name, id }, 'events not published yet; will retry');
      });
    chains.set(key, next);
    void next.then(() => {
      if (chains.get(key) === next) chains.delete(key);
      const left = (reading.get(key) ?? 1) - 1;
      if (left > 0) reading.set(key, left);
      else reading.delete(key);
    });
    return next;
  }

  async function sweep(now = Date.now()): Promise<void> {
    const cutoff = new Date(now - options.graceMs).toISOString();
    for (const source of options.sources) {
      const records = await source.withPending(options.sweepBatch ?? 200);
      const due = records.filter((record) => record.events.some((e) => e.timestamp <= cutoff));
      await Promise.all(due.map((record) => enqueue(source, record._id)));
      if (due.length > 0)
        log.info({ source: source.name, records: due.length }, 'relayed left-behind events');
    }
  }

  async function sweepIfHeld(): Promise<void> {
    if (options.leases && !(await options.leases.hold(EVENT_RELAY_LEASE))) return;
    countSweep();
    await sweep();
  }

  function sweepInBackground(): void {
    if (sweeping || stopped) return;
    sweeping = sweepIfHeld()
      .catch((error: unknown) => log.warn({ err: error }, 'event sweep failed'))
      .finally(() => {
        sweeping = undefined;
      });
  }

  return {
    /** Publishes, in the background, what a write just stored on this record. */
    relaySoon(source: OutboxSource, id: string): void {
      if (!stopped) void enqueue(source, id);
    },
    flush: (source: OutboxSource, id: string) => enqueue(source, id),
    /**
     * Publishes, in the background, what a batch of writes just stored (see relayWritten). Calls
     * made in the same turn of the event loop (the sends one batched write finished together)
     * are relayed together: one clearing write for all their records.
     */
    relayWrittenSoon(source: OutboxSource, records: { id: string; events: BrokerEvent[] }[]): void {
      if (stopped || records.length === 0) return;
      const waiting = gathering.get(source);
      if (waiting) {
        waiting.push(...records);
        return;
      }
      gathering.set(source, [...records]);
      gathered ??= new Promise<void>((resolve) =>
        setImmediate(() => {
          const due = [...gathering];
          gathering.clear();
          gathered = undefined;
          void Promise.all(due.map(([from, written]) => relayWritten(from, written))).then(() =>
            resolve(),
          );
        }),
      );
    },
    relayWritten,
    sweep,
    start(): void {
      if (timer) return;
      sweepInBackground();
      timer = setInterval(sweepInBackground, options.sweepIntervalMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await gathered;
      await sweeping;
      await Promise.all([...chains.values()]);
      // What waits to be cleared goes now (drain does not wait for the gathering delay).
      const clears = Promise.all(handing);
      await Promise.all([...clearBatches.values()].map((batches) => batches.drain()));
      await clears;
    },
  };
}

export type EventRelay = ReturnType<typeof createEventRelay>;
