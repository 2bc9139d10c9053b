import { Schema, type Connection } from 'mongoose';
import { createIfMissing, op } from './mongo-helpers';

/** Messages an organization sent in one calendar month (UTC): `_id` `<company_id>:<YYYY-MM>`. */
interface MessageQuota {
  _id: string;
  company_id: number;
  month: string;
  used: number;
  /** Named reservations still held, by name: their size (campaign starts). */
  reservations?: Record<string, number>;
}

const quotaSchema = new Schema<MessageQuota>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    month: { type: String, required: true },
    used: { type: Number, required: true },
    reservations: { type: Schema.Types.Mixed, default: undefined },
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
      reservationId?: string,
    ): Promise<boolean> {
      if (limit !== null && count > limit) return false;
      const _id = quotaId(company_id, month);
      const named = reservationId ? `reservations.${reservationId}` : undefined;
      const filter = {
        _id,
        ...(limit === null ? {} : { used: op({ $lte: limit - count }) }),
        ...(named ? { [named]: op({ $exists: false }) } : {}),
      };
      const update = { $inc: { used: count }, ...(named ? { $set: { [named]: count } } : {}) };
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await Quotas.updateOne(filter, update);
        if (result.matchedCount === 1) return true;
        if (attempt === 0 && !(await Quotas.exists({ _id }))) {
          await createIfMissing(Quotas, _id, { company_id, month, used: 0 });
          continue;
        }
        // Asked again for a reservation already held: it stands, nothing more is taken.
        return named !== undefined && (await Quotas.exists({ _id, [named]: count })) !== null;
      }
      return false;
    },

    /** Gives a named reservation back whole, once; 0 when it is not held. */
    async releaseReservation(
      company_id: number,
      month: string,
      reservationId: string,
    ): Promise<number> {
      const _id = quotaId(company_id, month);
      const named = `reservations.${reservationId}`;
      const quota = await Quotas.findById(_id).lean<MessageQuota>().exec();
      const count = quota?.reservations?.[reservationId];
      if (!count) return 0;
      const result = await Quotas.updateOne(
        { _id, [named]: count, used: op({ $gte: count }) },
        { $inc: { used: -count }, $unset: { [named]: '' } },
      );
      return result.modifiedCount === 1 ? count : 0;
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
