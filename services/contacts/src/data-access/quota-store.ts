import { createQuotaCounter } from '@switchboard/service-kit';
import mongoose, { Schema, type Connection } from 'mongoose';

/** How many contacts an organization holds: one document per organization. */
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

  // Places taken and given back stamp `changed_at`, which the recount job reads (`settled`).
  const places = createQuotaCounter(db, {
    collection: 'contact_quotas',
    field: 'count',
    stampField: 'changed_at',
  });

  return {
    /**
     * Takes one place, atomically: only while fewer than `limit` are taken (`null`: no limit, the
     * place is still counted). Returns false, having changed nothing, when the limit is reached.
     * A missing counter starts from the contacts the organization holds (`currentCount`).
     */
    reserve(
      company_id: number,
      limit: number | null,
      currentCount: () => Promise<number>,
    ): Promise<boolean> {
      return places.take({ owner: company_id }, limit, { countHeld: currentCount });
    },

    /** Gives a place back (a deleted contact, or a create that did not happen). */
    async release(company_id: number): Promise<void> {
      await places.giveBack({ owner: company_id });
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

    used(company_id: number): Promise<number> {
      return places.usage({ owner: company_id });
    },
  };
}

export type QuotaStore = ReturnType<typeof createQuotaStore>;
