import type { Connection } from 'mongoose';

interface CounterDocument {
  _id: string;
  seq: number;
}

/**
 * Allocates `count` consecutive integer ids for `name` in one atomic step and returns the first.
 * Ids are unique per counter across organizations (ARCHITECTURE §4).
 */
export async function allocateIds(
  connection: Connection,
  name: string,
  count = 1,
): Promise<number> {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError('count must be a positive integer');
  }
  const counters = connection.collection<CounterDocument>('counters');
  for (let attempt = 0; attempt < 2; attempt++) {
    const counter = await counters.findOneAndUpdate(
      { _id: name },
      { $inc: { seq: count } },
      { returnDocument: 'after' },
    );
    if (counter) return counter.seq - count + 1;
    // First use of this counter. Concurrent upserts through findOneAndUpdate race on FerretDB
    // (duplicate values or E11000), so the document is created on its own, then incremented.
    await counters
      .updateOne({ _id: name }, { $setOnInsert: { seq: 0 } }, { upsert: true })
      .catch((error: { code?: number }) => {
        if (error.code !== 11000) throw error;
      });
  }
  throw new Error(`counter ${name} could not be created`);
}

export function nextId(connection: Connection, name: string): Promise<number> {
  return allocateIds(connection, name, 1);
}

export interface IdBlockOptions {
  /** The most ids taken from the counter at once. */
  maxBlock: number;
  /**
   * A block older than this is dropped with whatever it has left, so that ids handed out by
   * several replicas stay in creation order to within this time (listings sort by id).
   */
  maxAgeMs: number;
}

/**
 * Ids of one counter handed out from blocks this process reserves in one atomic step each, rather
 * than one counter round trip per id. Ids stay unique across processes (each block is a process's
 * own); ids a process never used (it ended, or its block grew old) are skipped, never reused.
 * The block fits the traffic: it doubles (up to `maxBlock`) when one is used up in time and
 * shrinks to what was used when one grows old, so a quiet process still hands out dense ids.
 * Concurrent callers share one block request.
 */
export function createIdBlocks(
  connection: Connection,
  name: string,
  options: IdBlockOptions,
  clock: () => number = Date.now,
  allocate: typeof allocateIds = allocateIds,
): () => Promise<number> {
  let size = 1;
  let first = 0;
  let next = 0;
  let end = 0;
  let takenAt = 0;
  let refill: Promise<void> | undefined;

  async function takeBlock(): Promise<void> {
    if (end > 0) {
      const used = next - first;
      size = next >= end ? Math.min(size * 2, options.maxBlock) : Math.max(1, used);
    }
    const start = await allocate(connection, name, size);
    first = next = start;
    end = start + size;
    takenAt = clock();
  }

  return async function nextBlockId(): Promise<number> {
    // A block just taken serves its waiters whatever its age, so a slow counter never starves them.
    let fresh = false;
    while (!(next < end && (fresh || clock() - takenAt < options.maxAgeMs))) {
      refill ??= takeBlock().finally(() => {
        refill = undefined;
      });
      await refill;
      fresh = true;
    }
    return next++;
  };
}
