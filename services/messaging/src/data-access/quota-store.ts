import { Schema, type Connection } from 'mongoose';
import { createIfMissing, op } from './mongo-helpers';

/** Messages an organization sent in one calendar month (UTC): `_id` `<company_id>:<YYYY-MM>`. */
interface MessageQuota {
  _id: string;
  company_id: number;
  month: string;
  used: number;
}

const quotaSchema = new Schema<MessageQuota>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    month: { type: String, required: true },
    used: { type: Number, required: true },
  },
  { collection: 'message_quotas', versionKey: false },
);

const quotaId = (company_id: number, month: string) => `${company_id}:${month}`;

export function createQuotaStore(db: Connection) {
  const Quotas = db.model<MessageQuota>('MessageQuota', quotaSchema);

  return {
    /**
     * Takes `count` places at once, atomically, only if all fit under `limit` (`null`: no limit,
     * the places are still counted). False, having changed nothing, when they do not fit.
     */
    async reserve(
      company_id: number,
      month: string,
      limit: number | null,
      count = 1,
    ): Promise<boolean> {
      if (limit !== null && count > limit) return false;
      const _id = quotaId(company_id, month);
      const filter = limit === null ? { _id } : { _id, used: op({ $lte: limit - count }) };
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await Quotas.updateOne(filter, { $inc: { used: count } });
        if (result.matchedCount === 1) return true;
        if (attempt === 0 && !(await Quotas.exists({ _id }))) {
          await createIfMissing(Quotas, _id, { company_id, month, used: 0 });
          continue;
        }
        return false;
      }
      return false;
    },

    /** Gives places back (a send the provider refused, a reservation not used). */
    async release(company_id: number, month: string, count = 1): Promise<number> {
      const result = await Quotas.updateOne(
        { _id: quotaId(company_id, month), used: op({ $gte: count }) },
        { $inc: { used: -count } },
      );
      return result.modifiedCount === 1 ? count : 0;
    },

    async used(company_id: number, month: string): Promise<number> {
      const quota = await Quotas.findById(quotaId(company_id, month)).lean<MessageQuota>().exec();
      return quota?.used ?? 0;
    },
  };
}

export type QuotaStore = ReturnType<typeof createQuotaStore>;
