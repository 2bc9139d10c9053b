import { isDuplicateKeyError } from '@switchboard/service-kit';
import mongoose, { Schema, type Connection } from 'mongoose';

/** How many contacts an organization holds: one document per organization (ARCHITECTURE §5). */
export interface ContactQuota {
  _id: number;
  count: number;
  /** When a place was last taken or given back (absent on counters older than the field). */
  changed_at?: Date;
}

const quotaSchema = new Schema<ContactQuota>(
  {
    _id: { type: Number, required: true },
    count: { type: Number, required: true },
    changed_at: { type: Date },
  },
  { collection: 'contact_quotas', versionKey: false },
);

export function createQuotaStore(db: Connection) {
  const Quotas = db.model<ContactQuota>('ContactQuota', quotaSchema);

  /**
   * Creates the organization's counter, starting from the contacts it already holds. Concurrent
   * upserts of a missing document race on FerretDB, so it is created on its own first.
   */
  async function createCounter(company_id: number, currentCount: () => Promise<number>) {
    const count = await currentCount();
    await Quotas.updateOne(
      { _id: company_id },
      { $setOnInsert: { count, changed_at: new Date() } },
      { upsert: true },
    ).catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
  }

  return {
    /**
     * Takes one place, atomically: only while fewer than `limit` are taken (`null`: no limit, the
     * place is still counted). Returns false, having changed nothing, when the limit is reached.
     */
    async reserve(
      company_id: number,
      limit: number | null,
      currentCount: () => Promise<number>,
    ): Promise<boolean> {
      const filter =
        limit === null
          ? { _id: company_id }
          : { _id: company_id, count: mongoose.trusted({ $lt: limit }) };
      let counterExists = false;
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await Quotas.updateOne(filter, {
          $inc: { count: 1 },
          $set: { changed_at: new Date() },
        });
        if (result.matchedCount === 1) return true;
        // Refused for real only when the counter existed when the update ran.
        if (counterExists) return false;
        if (!(await Quotas.exists({ _id: company_id }))) {
          await createCounter(company_id, currentCount);
        }
        counterExists = true;
      }
      return false;
    },

    /** Gives a place back (a deleted contact, or a create that did not happen). */
    async release(company_id: number): Promise<void> {
      await Quotas.updateOne(
        { _id: company_id, count: mongoose.trusted({ $gt: 0 }) },
        { $inc: { count: -1 }, $set: { changed_at: new Date() } },
      );
    },

    /** Counters no place was taken from or given back to since `before`. */
    settled(before: Date): Promise<ContactQuota[]> {
      return Quotas.find({
        $or: [{ changed_at: mongoose.trusted({ $lt: before }) }, { changed_at: null }],
      })
        .lean<ContactQuota[]>()
        .exec();
    },

    /**
     * Sets a counter to `count` only if it is still exactly as `observed` was: a place taken or
     * given back meanwhile wins, and the counter is looked at again next time.
     */
    async correct(observed: ContactQuota, count: number): Promise<boolean> {
      const result = await Quotas.updateOne(
        {
          _id: observed._id,
          count: observed.count,
          changed_at: observed.changed_at ?? null,
        },
        { $set: { count, changed_at: new Date() } },
      );
      return result.modifiedCount === 1;
    },

    async used(company_id: number): Promise<number> {
      const quota = await Quotas.findById(company_id).lean<ContactQuota>().exec();
      return quota?.count ?? 0;
    },
  };
}

export type QuotaStore = ReturnType<typeof createQuotaStore>;
