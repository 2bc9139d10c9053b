import type { BrokerEvent } from '@switchboard/contracts';
import type { Leases } from '../leases';
import type { Logger } from '../logger';
import { jobRunCounter } from '../periodic-job';
import { runInTraceContext } from '../trace-context';
import { splitPending, type OutboxSource } from './event-outbox';

export interface EventRelayOptions {
  sources: OutboxSource[];
  /** Resolves once the broker has confirmed the event. */
  publish: (event: BrokerEvent) => Promise<void>;
  /**
   * Publishes the events of many records written together (each record's in order), answering
   * per record and event whether the broker confirmed it: e.g. `eventBatchPublisher`, which
   * sends events bound for the same queues as one batch message. Default: `publish` each.
   */
  publishMany?: (sequences: BrokerEvent[][]) => Promise<PromiseSettledResult<void>[][]>;
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
  /**
   * How long, at most, the clear of a handed-over record's published events waits for the
   * record's next write to carry it (see takeClears), when that write usually follows soon.
   * Default `CLEAR_GATHER_MS`: clears only gather with others of the source.
   */
  clearWaitMs?: number;
  /**
   * How long what a write hands over (relayWrittenSoon) waits for the events of other writes, so
   * that they go out together: one broker message, and one delivery to each queue it reaches,
   * instead of one per write. Default 0: only the writes that ended in the same turn of the event
   * loop go together. Events are published that much later; nothing a caller waits for is held.
   */
  gatherMs?: number;
}

/** A clear of published events waiting to be written, alone or carried by the record's next write. */
interface WaitingClear {
  eventIds: string[];
  /** When it is written alone (ms since the epoch). */
  due: number;
  /** Called once the clear is written (or failed, leaving the events for the sweep). */
  settle: () => void;
}

/** Published events' clears a writer took along into its own write of the records (takeClears). */
export interface TakenClears {
  /** Event ids to clear, per record id. */
  readonly clears: ReadonlyMap<string, string[]>;
  /**
   * To call once the write is done: `true` when every record's write carrying its clear landed;
   * `false` (which ones landed unknown) writes them all alone now. Clears are idempotent.
   */
  settle(landed: boolean): void;
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
 * again (at least once; consumers deduplicate on the event id, which is a lone event's message
 * id). Right after a write its events go out at once, those of records written together through
 * `publishMany` (in batch messages, when it batches); a periodic sweep picks up what a failed
 * publish or a dead process left, one event at a time, each in the trace context stored with it.
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
  /** Per source with `clearMany`: published events' clears not written yet, by record id. */
  const waitingClears = new Map<OutboxSource, Map<string, WaitingClear>>();
  const clearTimers = new Map<OutboxSource, { at: number; timer: NodeJS.Timeout }>();
  /** Clearing writes under way (stop waits for them). */
  const clearWrites = new Set<Promise<void>>();
  const clearWaitMs = options.clearWaitMs ?? CLEAR_GATHER_MS;
  const publishMany =
    options.publishMany ??
    ((sequences: BrokerEvent[][]) =>
      Promise.all(
        sequences.map((events) => Promise.allSettled(events.map((e) => options.publish(e)))),
      ));
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  let stopped = false;
  const countSweep = jobRunCounter(EVENT_RELAY_LEASE);
  /**
   * Records handed over and not relayed yet, per source: relayed together at the end of this turn
   * of the event loop, or `gatherMs` after the first of them.
   */
  const gathering = new Map<OutboxSource, { id: string; events: BrokerEvent[] }[]>();
  let gathered: Promise<void> | undefined;
  /** Relays what gathered (at the end of the turn, after `gatherMs`, or at once on stop). */
  let relayGathered: (() => void) | undefined;
  const gatherMs = options.gatherMs ?? 0;

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
          await clearedOf(source, record.id);
          await relayRecord(source, record.id);
        }),
      );
      const trusted = records.filter((record) => !contested.has(record));
      // Sent in order on one channel; confirms are awaited together.
      const outcomes = await publishMany(trusted.map((record) => record.events));
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

  /** A record's clear now counts among those a relay reading the record waits for. */
  function trackClear(key: string, done: Promise<void>): void {
    const previous = clearing.get(key);
    const mine = previous ? Promise.all([previous, done]).then(() => undefined) : done;
    clearing.set(key, mine);
    void mine.then(() => {
      if (clearing.get(key) === mine) clearing.delete(key);
    });
  }

  const waitingOf = (source: OutboxSource) => {
    let waiting = waitingClears.get(source);
    if (!waiting) {
      waiting = new Map();
      waitingClears.set(source, waiting);
    }
    return waiting;
  };

  /** Has the waiting clears of `source` written when the earliest is due (or at `at`). */
  function scheduleClears(source: OutboxSource, at?: number): void {
    const waiting = waitingClears.get(source);
    if (!waiting || waiting.size === 0) return;
    let when = at ?? Infinity;
    if (at === undefined) for (const clear of waiting.values()) when = Math.min(when, clear.due);
    const current = clearTimers.get(source);
    if (current && current.at <= when) return;
    if (current) clearTimeout(current.timer);
    const timer = setTimeout(
      () => {
        clearTimers.delete(source);
        writeClears(source, Date.now() + CLEAR_GATHER_MS);
        scheduleClears(source);
      },
      Math.max(0, when - Date.now()),
    );
    timer.unref();
    clearTimers.set(source, { at: when, timer });
  }

  /**
   * Writes the waiting clears of `source` due by `horizon` in as few writes as the database
   * allows (those due a little later go with them: clears gather). A failed clear leaves the
   * events for the sweep (published again, never lost).
   */
  function writeClears(source: OutboxSource, horizon: number): Promise<void> {
    const waiting = waitingClears.get(source);
    const due = [...(waiting ?? [])].filter(([, clear]) => clear.due <= horizon);
    if (due.length === 0) return Promise.resolve();
    for (const [id] of due) waiting!.delete(id);
    const write = source.clearMany!(due.map(([id, clear]) => ({ id, eventIds: clear.eventIds })))
      .catch((error: unknown) => {
        log.warn({ err: error, source: source.name }, 'published events not cleared yet');
      })
      .finally(() => {
        for (const [, clear] of due) clear.settle();
        clearWrites.delete(write);
      });
    clearWrites.add(write);
    return write;
  }

  /** Puts a record's clear among those waiting (joined with one already waiting). */
  function waitClear(source: OutboxSource, id: string, clear: WaitingClear): void {
    const waiting = waitingOf(source);
    const joined = waiting.get(id);
    if (!joined) {
      waiting.set(id, clear);
    } else {
      joined.eventIds.push(...clear.eventIds);
      joined.due = Math.min(joined.due, clear.due);
      const before = joined.settle;
      joined.settle = () => {
        before();
        clear.settle();
      };
    }
    scheduleClears(source, waiting.get(id)!.due);
  }

  /** A record's waiting clear goes now: a relay reading the record waits for it. */
  function hurryClear(source: OutboxSource, id: string): void {
    const clear = waitingClears.get(source)?.get(id);
    if (!clear) return;
    clear.due = 0;
    scheduleClears(source, 0);
  }

  /**
   * Clears published events of handed-over records. With `clearMany`, each waits up to
   * `clearWaitMs` for the record's next write to carry it (takeClears), then goes with the
   * source's other clears due about then in one write. A failed clear leaves the events for the
   * sweep (published again, never lost).
   */
  function clearLater(
    source: OutboxSource,
    published: { id: string; eventIds: string[] }[],
  ): Promise<void> {
    const due = published.filter((record) => record.eventIds.length > 0);
    if (due.length === 0) return Promise.resolve();
    if (source.clearMany) {
      return Promise.all(
        due.map((record) => {
          const done = new Promise<void>((settle) =>
            waitClear(source, record.id, {
              eventIds: [...record.eventIds],
              due: Date.now() + clearWaitMs,
              settle,
            }),
          );
          trackClear(`${source.name}:${record.id}`, done);
          return done;
        }),
      ).then(() => undefined);
    }
    const done = (async () => {
      for (const record of due) await source.clear(record.id, record.eventIds);
    })().catch((error: unknown) => {
      log.warn({ err: error, source: source.name }, 'published events not cleared yet');
    });
    for (const record of due) trackClear(`${source.name}:${record.id}`, done);
    return done;
  }

  /** Waits for a record's clears, hurrying one that waits for a write to carry it. */
  function clearedOf(source: OutboxSource, id: string): Promise<void> | undefined {
    hurryClear(source, id);
    return clearing.get(`${source.name}:${id}`);
  }

  function enqueue(source: OutboxSource, id: string): Promise<void> {
    const key = `${source.name}:${id}`;
    // Events of this record gathering for company go first, in order, and are not read again.
    if (gathering.get(source)?.some((record) => record.id === id)) relayGathered?.();
    reading.set(key, (reading.get(key) ?? 0) + 1);
    const next = (chains.get(key) ?? Promise.resolve())
      .then(() => clearedOf(source, id))
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
      // Events published already whose clear waits for a write to carry it are not left behind.
      const waiting = waitingClears.get(source);
      const due = records.filter((record) => {
        const cleared = new Set(waiting?.get(record._id)?.eventIds);
        return record.events.some((e) => e.timestamp <= cutoff && !cleared.has(e.id));
      });
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
      gathered ??= new Promise<void>((resolve) => {
        const wake =
          gatherMs > 0
            ? setTimeout(() => relayGathered?.(), gatherMs)
            : setImmediate(() => relayGathered?.());
        relayGathered = () => {
          if (gatherMs > 0) clearTimeout(wake as NodeJS.Timeout);
          else clearImmediate(wake as NodeJS.Immediate);
          relayGathered = undefined;
          const due = [...gathering];
          gathering.clear();
          gathered = undefined;
          // Handed on: stop waits for their publishing and clearing through chains and handing
          // (a clear may wait for a write to carry it, which stop does not wait for).
          for (const [from, written] of due) void relayWritten(from, written);
          resolve();
        };
      });
    },
    relayWritten,
    /**
     * Takes the waiting clears of these records (of `source`), for a write of the records to
     * carry: it removes the event ids from their outbox in the same write, and then calls
     * `settle` (see TakenClears). A relay reading one of them waits for that.
     */
    takeClears(source: OutboxSource, ids: Iterable<string>): TakenClears {
      const waiting = waitingClears.get(source);
      const taken = new Map<string, WaitingClear>();
      for (const id of ids) {
        const clear = waiting?.get(id);
        if (!clear) continue;
        waiting!.delete(id);
        taken.set(id, clear);
      }
      let settled = false;
      return {
        clears: new Map([...taken].map(([id, clear]) => [id, clear.eventIds])),
        settle(landed: boolean) {
          if (settled) return;
          settled = true;
          if (landed) {
            for (const clear of taken.values()) clear.settle();
            return;
          }
          for (const [id, clear] of taken) waitClear(source, id, { ...clear, due: 0 });
        },
      };
    },
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
      relayGathered?.(); // what gathers for company goes now
      await gathered;
      await sweeping;
      await Promise.all([...chains.values()]);
      // What waits to be cleared goes now, without waiting for a write to carry it.
      const clears = Promise.all(handing);
      for (const { timer } of clearTimers.values()) clearTimeout(timer);
      clearTimers.clear();
      await Promise.all([...waitingClears.keys()].map((source) => writeClears(source, Infinity)));
      await Promise.all([...clearWrites]);
      await clears;
    },
  };
}

export type EventRelay = ReturnType<typeof createEventRelay>;
