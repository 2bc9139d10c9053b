import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from './duplicate-key-error';

export interface PlaceCounterOptions {
  /** The collection holding one counter document per owner, `{ _id: owner, [field]: taken }`. */
  collection: string;
  field: string;
  /** A date field set whenever a place is taken or given back (for a job that recounts). */
  stampField?: string;
}

/**
 * Places an owner takes from a ceiling (an organization's agent seats, its contacts), one counter
 * document per owner. Taking is one conditional `$inc`, so concurrent takers never pass the
 * limit; giving back never goes below zero. A missing counter is made, the first time it is
 * needed, from what the owner already holds (`countHeld`): owners older than the counter have one.
 */
export function createPlaceCounter(connection: Connection, options: PlaceCounterOptions) {
  const counters = connection.collection<{ _id: number }>(options.collection);
  const { field, stampField } = options;
  const stamp = (): Record<string, Date> => (stampField ? { [stampField]: new Date() } : {});
  const change = (by: 1 | -1) => ({
    $inc: { [field]: by },
    ...(stampField ? { $set: stamp() } : {}),
  });

  /** Concurrent upserts of a missing document race on FerretDB: made on its own, first wins. */
  async function create(owner: number, countHeld: () => Promise<number>): Promise<void> {
    const held = await countHeld();
    await counters
      .updateOne({ _id: owner }, { $setOnInsert: { [field]: held, ...stamp() } }, { upsert: true })
      .catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
  }

  return {
    /**
     * Takes one place, atomically, only while fewer than `limit` are taken (`null`: no limit,
     * the place is still counted). False, having changed nothing, when the limit is reached.
     */
    async take(owner: number, limit: number | null, countHeld: () => Promise<number>) {
      const filter = limit === null ? { _id: owner } : { _id: owner, [field]: { $lt: limit } };
      const take = () => counters.updateOne(filter, change(1));
      if ((await take()).matchedCount === 1) return true;
      // A miss is a refusal only once the counter surely existed when the update ran: a
      // concurrent first take may have made it just after this one missed, so try once more.
      if (!(await counters.findOne({ _id: owner }, { projection: { _id: 1 } }))) {
        await create(owner, countHeld);
      }
      return (await take()).matchedCount === 1;
    },

    /** Gives a place back: what held it is gone, or the take was not used after all. */
    async giveBack(owner: number): Promise<void> {
      await counters.updateOne({ _id: owner, [field]: { $gt: 0 } }, change(-1));
    },

    /** Drops the owner's counter (the owner is gone). */
    async remove(owner: number): Promise<void> {
      await counters.deleteOne({ _id: owner });
    },

    /** Places taken now (0 before the first take). */
    async taken(owner: number): Promise<number> {
      const counter = await counters.findOne({ _id: owner });
      const value = (counter as Record<string, unknown> | null)?.[field];
      return typeof value === 'number' ? value : 0;
    },
  };
}

export type PlaceCounter = ReturnType<typeof createPlaceCounter>;
