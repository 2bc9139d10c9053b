import type { Connection } from 'mongoose';
import { createBatcher } from './batcher';
import { isDuplicateKeyError } from './duplicate-key-error';

export interface QuotaCounterOptions {
  /** The collection holding the counters. */
  collection: string;
  /**
   * `'month'`: one counter per owner and calendar month (UTC), `_id` `<owner>:<YYYY-MM>`, every
   * call naming its month. Without it, one counter per owner, `_id` the owner.
   */
  period?: 'month';
  /** The field counting the places taken (`used` unless told). */
  field?: string;
  /** A date field set whenever places are taken or given back (for a job that recounts). */
  stampField?: string;
}

/** Which counter: the owner's, and with `period: 'month'` the month's (`YYYY-MM`). */
export interface CounterKey {
  owner: number;
  month?: string;
}

/** A place held under a name that was neither settled nor given back (what a crash may leave). */
export interface HeldPlace {
  at: CounterKey;
  name: string;
  heldAt: Date;
}

interface Counter {
  _id: string | number;
  month?: string;
  /** Holds: one place each, by name, until settled or given back; when each was taken (ms). */
  holds?: Record<string, number>;
  /** Reservations: a number of places under one name, until given back whole. */
  reservations?: Record<string, number>;
  [field: string]: unknown;
}

type Filter = Record<string, unknown>;
type Update = Record<string, unknown>;

/** How long a settled name waits for holds of its counter to ride with before it goes alone. */
const SETTLE_WAIT_MS = 1_000;

interface SettleWaiting {
  at: CounterKey;
  name: string;
  resolve(): void;
  reject(error: unknown): void;
}

/** A hold waiting for its batch, or a settled hold whose name waits to be dropped. */
type Pending =
  | { kind: 'hold'; at: CounterKey; limit: number | null; name: string; now: Date }
  | { kind: 'settle'; at: CounterKey; name: string };

/**
 * Places an owner takes from a limit: an organization's contacts or agent seats, its messages
 * or campaigns of a month. One counter document per owner (and month); taking is one
 * conditional `$inc`, so concurrent takers never pass the limit, and giving back never goes
 * below zero. Places are taken in three ways:
 * - anonymously (`take`, `giveBack`): the caller knows what holds them;
 * - reserved under a name (`reserve`, `release`): asked twice takes once, given back whole once;
 * - held under a name (`hold`, then `settle` or `giveBackHold`): for a place whose holder is not
 *   stored yet; what a crash leaves named is listed by `heldBefore` for a recovery job.
 * A missing counter is made the first time it is needed, from what the owner already holds
 * when the caller says how to count it (owners older than the counter have one).
 */
export function createQuotaCounter(connection: Connection, options: QuotaCounterOptions) {
  const counters = connection.collection<Counter>(options.collection);
  const field = options.field ?? 'used';
  const { stampField, period } = options;

  function idOf(at: CounterKey): string | number {
    if (period !== 'month') return at.owner;
    if (!at.month) throw new Error(`${options.collection}: a monthly counter needs its month`);
    return `${at.owner}:${at.month}`;
  }
  function keyOf(counter: Counter): CounterKey {
    if (period !== 'month') return { owner: Number(counter._id) };
    const [owner, month] = String(counter._id).split(':');
    return { owner: Number(owner), month: month! };
  }
  const stamped = (update: Update): Update =>
    stampField
      ? { ...update, $set: { ...(update.$set as Update), [stampField]: new Date() } }
      : update;
  const below = (limit: number | null, count: number): Filter =>
    limit === null ? {} : { [field]: { $lte: limit - count } };

  const exists = async (filter: Filter) =>
    (await counters.findOne(filter, { projection: { _id: 1 } })) !== null;

  /** Concurrent upserts of a missing document race on FerretDB: made on its own, first wins. */
  async function create(at: CounterKey, countHeld?: () => Promise<number>): Promise<void> {
    const held = countHeld ? await countHeld() : 0;
    const fields = {
      [field]: held,
      ...(at.month ? { month: at.month } : {}),
      ...(stampField ? { [stampField]: new Date() } : {}),
    };
    await counters
      .updateOne({ _id: idOf(at) }, { $setOnInsert: fields }, { upsert: true })
      .catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
  }

  /**
   * One conditional update; on a miss, the counter is made when missing and the update tried
   * once more. A miss is a refusal only once the counter surely existed when the update ran:
   * parallel first takers all miss before any of them has made it.
   */
  async function takeWith(
    at: CounterKey,
    filter: Filter,
    update: Update,
    countHeld?: () => Promise<number>,
  ): Promise<boolean> {
    const _id = idOf(at);
    const attempt = async () =>
      (await counters.updateOne({ _id, ...filter }, stamped(update))).matchedCount === 1;
    if (await attempt()) return true;
    if (!(await exists({ _id }))) {
      await create(at, countHeld);
    }
    return attempt();
  }

  /** A name is a field path of the counter: only characters that cannot make another path. */
  function named(kind: 'holds' | 'reservations', name: string): string {
    if (!/^[A-Za-z0-9:_-]{1,200}$/.test(name)) {
      throw new Error(`${options.collection}: ${name} is no hold or reservation name`);
    }
    return `${kind}.${name}`;
  }

  const holdFilter = (name: string, limit: number | null): Filter => ({
    [named('holds', name)]: { $exists: false },
    ...below(limit, 1),
  });
  const holdUpdate = (name: string, now: Date): Update => ({
    $inc: { [field]: 1 },
    $set: { [named('holds', name)]: now.getTime() },
  });

  /** One held place, alone: also makes the counter; asked again under its name, it stands. */
  async function holdAlone(at: CounterKey, limit: number | null, name: string, now: Date) {
    if (await takeWith(at, holdFilter(name, limit), holdUpdate(name, now))) return true;
    return exists({ _id: idOf(at), [named('holds', name)]: { $exists: true } });
  }

  /**
   * Settled names waiting for a write: the name is only bookkeeping (the place stays taken
   * either way), so it rides with the next holds of its counter instead of costing a command of
   * its own, or goes on its own after `SETTLE_WAIT_MS` when no hold comes.
   */
  let settling: SettleWaiting[] = [];
  let settleTimer: NodeJS.Timeout | undefined;
  function flushSettling(): void {
    clearTimeout(settleTimer);
    settleTimer = undefined;
    const due = settling;
    settling = [];
    for (const waiting of due) {
      batches
        .add({ kind: 'settle', at: waiting.at, name: waiting.name })
        .then(() => waiting.resolve(), waiting.reject);
    }
  }
  /** The waiting settled names of one counter, taken by the write of its holds. */
  function takeSettling(_id: string | number): SettleWaiting[] {
    const mine = settling.filter((waiting) => idOf(waiting.at) === _id);
    if (mine.length > 0) settling = settling.filter((waiting) => idOf(waiting.at) !== _id);
    if (settling.length === 0) {
      clearTimeout(settleTimer);
      settleTimer = undefined;
    }
    return mine;
  }

  /**
   * Holds and settled names of concurrent callers, one `bulkWrite` per counter: first the names
   * to drop, then each hold as the same conditional `$inc` as `holdAlone`'s, applied one after
   * the other, so none is granted past the limit. When not all holds matched, the counter is
   * read once to see whose names it holds; the others go through `holdAlone` (which also makes
   * a missing counter). A lone caller waits for nothing; callers arriving during a write share
   * the next one, so a send's hold and an earlier send's settlement cost one command together.
   */
  const batches = createBatcher<Pending, boolean>({
    maxItems: 500,
    maxWaitMs: 0,
    async run(items) {
      const byCounter = new Map<string | number, Pending[]>();
      for (const item of items) {
        const _id = idOf(item.at);
        byCounter.set(_id, [...(byCounter.get(_id) ?? []), item]);
      }
      const granted = new Map<Pending, boolean>();
      await Promise.all(
        [...byCounter.entries()].map(async ([_id, group]) => {
          const holds = group.filter((item) => item.kind === 'hold');
          const passengers = holds.length > 0 ? takeSettling(_id) : [];
          const settled = [
            ...group.filter((item) => item.kind === 'settle').map((item) => item.name),
            ...passengers.map((waiting) => waiting.name),
          ];
          const operations = [
            ...(settled.length > 0
              ? [
                  {
                    updateOne: {
                      filter: { _id },
                      update: {
                        $unset: Object.fromEntries(settled.map((n) => [named('holds', n), ''])),
                      },
                    },
                  },
                ]
              : []),
            ...holds.map((hold) => ({
              updateOne: {
                filter: { _id, ...holdFilter(hold.name, hold.limit) },
                update: stamped(holdUpdate(hold.name, hold.now)),
              },
            })),
          ];
          let result;
          try {
            result = await counters.bulkWrite(operations, { ordered: true });
          } catch (error) {
            for (const waiting of passengers) waiting.reject(error);
            throw error;
          }
          for (const waiting of passengers) waiting.resolve();
          const holdsMatched = result.matchedCount - (settled.length > 0 ? 1 : 0);
          if (holds.length > 0 && holdsMatched < holds.length) {
            const counter = await counters.findOne({ _id });
            for (const hold of holds) granted.set(hold, counter?.holds?.[hold.name] !== undefined);
          } else {
            for (const hold of holds) granted.set(hold, true);
          }
        }),
      );
      return items.map((item) => granted.get(item) ?? true);
    },
  });

  return {
    /** Makes the index the recovery job's reading of one month's counters needs. */
    async init(): Promise<void> {
      if (period === 'month') await counters.createIndex({ month: 1 });
    },

    /**
     * Takes `count` places at once, atomically, only if all fit under `limit` (`null`: no limit,
     * the places are still counted). False, having changed nothing, when they do not fit. A
     * missing counter starts from `countHeld()` (0 without it).
     */
    async take(
      at: CounterKey,
      limit: number | null,
      { count = 1, countHeld }: { count?: number; countHeld?: () => Promise<number> } = {},
    ): Promise<boolean> {
      if (limit !== null && count > limit) return false;
      return takeWith(at, below(limit, count), { $inc: { [field]: count } }, countHeld);
    },

    /** Gives `count` anonymous places back; 0, having changed nothing, when fewer are taken. */
    async giveBack(at: CounterKey, count = 1): Promise<number> {
      const result = await counters.updateOne(
        { _id: idOf(at), [field]: { $gte: count } },
        stamped({ $inc: { [field]: -count } }),
      );
      return result.modifiedCount === 1 ? count : 0;
    },

    /**
     * Reserves `count` places under `name`, all or nothing, within `limit`. Asked again under
     * the same name with the same count, the reservation stands and nothing more is taken.
     */
    async reserve(at: CounterKey, limit: number | null, name: string, count = 1): Promise<boolean> {
      if (limit !== null && count > limit) return false;
      const reserved = named('reservations', name);
      const filter = { ...below(limit, count), [reserved]: { $exists: false } };
      const update = { $inc: { [field]: count }, $set: { [reserved]: count } };
      if (await takeWith(at, filter, update)) return true;
      return exists({ _id: idOf(at), [reserved]: count });
    },

    /** Gives a reservation back whole, once: how many places went back (0 when not held). */
    async release(at: CounterKey, name: string): Promise<number> {
      const _id = idOf(at);
      const reserved = named('reservations', name);
      const count = (await counters.findOne({ _id }))?.reservations?.[name];
      if (!count) return 0;
      const result = await counters.updateOne(
        { _id, [reserved]: count, [field]: { $gte: count } },
        stamped({ $inc: { [field]: -count }, $unset: { [reserved]: '' } }),
      );
      return result.modifiedCount === 1 ? count : 0;
    },

    /**
     * Holds one place under `name` within `limit`, until `settle` keeps it or `giveBackHold`
     * returns it. Written with other callers' holds and settlements (one command for all that
     * fit). Asked again under the same name, the place stands and nothing more is taken.
     */
    async hold(at: CounterKey, limit: number | null, name: string, now = new Date()) {
      named('holds', name); // a bad name fails its caller, not the batch it would join
      if (await batches.add({ kind: 'hold', at, limit, name, now })) return true;
      return holdAlone(at, limit, name, now);
    },

    /**
     * Moves the place held under `from` to the name `to` in one write, so the first holder can
     * never give it back once the second has it; false when `from` holds nothing.
     */
    async moveHold(at: CounterKey, from: string, to: string, now = new Date()): Promise<boolean> {
      const result = await counters.updateOne(
        { _id: idOf(at), [named('holds', from)]: { $exists: true } },
        { $unset: { [named('holds', from)]: '' }, $set: { [named('holds', to)]: now.getTime() } },
      );
      return result.matchedCount === 1;
    },

    /**
     * The hold's holder is stored and holds the place from now on: only the name goes, with the
     * next holds of its counter (or alone, a second later, when none comes). A name a failure
     * leaves is dropped by the recovery job instead.
     */
    async settle(at: CounterKey, name: string): Promise<void> {
      named('holds', name);
      await new Promise<void>((resolve, reject) => {
        settling.push({ at, name, resolve, reject });
        // Unreferenced: a name left unwritten at exit is the recovery job's, as after a crash.
        settleTimer ??= setTimeout(flushSettling, SETTLE_WAIT_MS).unref();
      });
    },

    /** Gives a held place back, once; false when it is not held (settled or given back). */
    async giveBackHold(at: CounterKey, name: string): Promise<boolean> {
      const held = named('holds', name);
      const result = await counters.updateOne(
        { _id: idOf(at), [held]: { $exists: true }, [field]: { $gte: 1 } },
        stamped({ $inc: { [field]: -1 }, $unset: { [held]: '' } }),
      );
      return result.modifiedCount === 1;
    },

    /** Places held under names since before `before`, of one month's counters with a period. */
    async heldBefore(before: Date, month?: string): Promise<HeldPlace[]> {
      const found = await counters.find(month ? { month } : { holds: { $exists: true } }).toArray();
      return found.flatMap((counter) =>
        Object.entries(counter.holds ?? {})
          .filter(([, heldAt]) => heldAt < before.getTime())
          .map(([name, heldAt]) => ({ at: keyOf(counter), name, heldAt: new Date(heldAt) })),
      );
    },

    /** Places taken now, held and reserved ones included (0 before the first take). */
    async usage(at: CounterKey): Promise<number> {
      const value = (await counters.findOne({ _id: idOf(at) }))?.[field];
      return typeof value === 'number' ? value : 0;
    },

    /** Drops the owner's counter (the owner is gone). */
    async remove(at: CounterKey): Promise<void> {
      await counters.deleteOne({ _id: idOf(at) });
    },

    /** Resolves once every hold and settlement asked for so far is written (at shutdown). */
    async drain(): Promise<void> {
      flushSettling();
      await batches.drain();
    },
  };
}

export type QuotaCounter = ReturnType<typeof createQuotaCounter>;
