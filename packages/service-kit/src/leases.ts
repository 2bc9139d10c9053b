import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from './duplicate-key-error';
import type { Logger } from './logger';

/** The collection holding one lease document per named piece of work, in each service's database. */
export const LEASE_COLLECTION = 'leases';

/** How long a lease lasts after its last renewal. */
export const LEASE_TTL_MS = 15_000;
/** How often a replica renews what it holds and tries to take what it wants. */
export const LEASE_RENEW_MS = 5_000;
/**
 * The holder stops counting on a lease this long before the expiry other replicas read: covers
 * the clock difference between replicas (NTP keeps it in milliseconds) and the write's own delay.
 */
export const LEASE_MARGIN_MS = 5_000;

/**
 * The longest a lease stays with a replica that died: its expiry, plus one renewal period before
 * a survivor tries again. The work itself then runs at the survivor's next tick of that job.
 */
export const LEASE_TAKEOVER_BOUND_MS = LEASE_TTL_MS + LEASE_RENEW_MS;

export interface LeaseDocument {
  _id: string;
  holder: string;
  expires_at: Date;
  acquired_at: Date;
  renewed_at: Date;
}

export interface LeaseTiming {
  ttlMs: number;
  renewEveryMs: number;
  marginMs: number;
}

/**
 * Named leases of one process: a piece of periodic work runs on the replica holding its lease,
 * and on no other. A lease is one document `{_id: name, holder, expires_at}`; it is taken or
 * renewed by a single conditional update (held by me, or expired), or created by an insert that
 * the unique `_id` lets only one replica win. Only single-document conditional writes are used,
 * which hold on MongoDB and on the local database alike.
 */
export interface Leases {
  /** Who this process is in lease documents: service, host, process id and a random tag. */
  readonly holder: string;
  /**
   * Whether this process holds `name` now. The first call for a name marks it wanted (renewed and
   * retried from then on in the background) and tries to take it at once.
   */
  hold(name: string): Promise<boolean>;
  /** Whether this process holds `name`, from what it last wrote (no database call). */
  holds(name: string): boolean;
  /** Stops renewing and gives up every lease held, so that another replica takes over at once. */
  stop(): Promise<void>;
}

export function createLeases(options: {
  db: Connection;
  service: string;
  logger: Logger;
  timing?: Partial<LeaseTiming>;
  /** Defaults to the host's clock; tests move time. */
  now?: () => number;
}): Leases {
  const timing: LeaseTiming = {
    ttlMs: LEASE_TTL_MS,
    renewEveryMs: LEASE_RENEW_MS,
    marginMs: LEASE_MARGIN_MS,
    ...options.timing,
  };
  const now = options.now ?? Date.now;
  const holder = `${options.service}@${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const collection = options.db.collection<LeaseDocument>(LEASE_COLLECTION);
  const log = options.logger.child({ component: 'leases' });
  /** Per wanted name: until when this process may count on it (0 when not held). */
  const heldUntil = new Map<string, number>();
  const attempts = new Map<string, Promise<boolean>>();
  /** Names whose lease document exists: a missed update needs no insert to find out. */
  const stored = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function tryTake(name: string): Promise<boolean> {
    const startedAt = now();
    const expires_at = new Date(startedAt + timing.ttlMs);
    const renewed_at = new Date(startedAt);
    const wasHeld = (heldUntil.get(name) ?? 0) > startedAt;
    let taken: boolean;
    const renewed = await collection.updateOne(
      { _id: name, $or: [{ holder }, { expires_at: { $lte: renewed_at } }] },
      { $set: { holder, expires_at, renewed_at } },
    );
    if (renewed.matchedCount === 1) {
      taken = true;
    } else if (stored.has(name)) {
      taken = false;
    } else {
      try {
        await collection.insertOne({
          _id: name,
          holder,
          expires_at,
          acquired_at: renewed_at,
          renewed_at,
        });
        taken = true;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        taken = false;
      }
    }
    stored.add(name);
    if (stopped) return false;
    // Counted from before the write: the holder's view of its lease ends before anyone else's.
    heldUntil.set(name, taken ? startedAt + timing.ttlMs - timing.marginMs : 0);
    if (taken && !wasHeld) log.info({ lease: name, holder }, 'lease taken');
    if (!taken && wasHeld) log.warn({ lease: name, holder }, 'lease lost');
    return taken;
  }

  function attempt(name: string): Promise<boolean> {
    let running = attempts.get(name);
    if (!running) {
      running = tryTake(name)
        .catch((error: unknown) => {
          // The database away: what was held stays held until its own deadline, no longer.
          log.warn({ err: error, lease: name }, 'lease not renewed');
          return (heldUntil.get(name) ?? 0) > now();
        })
        .finally(() => attempts.delete(name));
      attempts.set(name, running);
    }
    return running;
  }

  function renewAll(): void {
    for (const name of heldUntil.keys()) void attempt(name);
  }

  return {
    holder,
    async hold(name) {
      if (stopped) return false;
      if (!heldUntil.has(name)) heldUntil.set(name, 0);
      if (!timer) {
        timer = setInterval(renewAll, timing.renewEveryMs);
        timer.unref();
      }
      const until = heldUntil.get(name)!;
      // Held with more than a renewal period to go: the background renewal keeps it.
      if (until - now() > timing.renewEveryMs) return true;
      return attempt(name);
    },
    holds(name) {
      return !stopped && (heldUntil.get(name) ?? 0) > now();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await Promise.all(attempts.values());
      const names = [...heldUntil.keys()];
      heldUntil.clear();
      await Promise.all(
        names.map((name) =>
          collection
            .updateOne({ _id: name, holder }, { $set: { expires_at: new Date(0) } })
            .catch((error: unknown) => log.warn({ err: error, lease: name }, 'lease not given up')),
        ),
      );
    },
  };
}
