import { isDuplicateKeyError } from '@switchboard/service-kit';
import mongoose, { Schema, type Connection } from 'mongoose';

/** Campaigns started per organization and calendar month (UTC): `_id` `<company>:<month>`. */
interface CampaignQuota {
  _id: string;
  count: number;
}

const quotaSchema = new Schema<CampaignQuota>(
  { _id: { type: String, required: true }, count: { type: Number, required: true } },
  { collection: 'campaign_quotas', versionKey: false },
);

export function createCampaignQuotaStore(db: Connection) {
  const Quotas = db.model<CampaignQuota>('CampaignQuota', quotaSchema);
  const key = (company_id: number, month: string) => `${company_id}:${month}`;

  return {
    /** Takes one campaign of the month, atomically, only below `limit` (null: no limit). */
    async reserve(company_id: number, month: string, limit: number | null): Promise<boolean> {
      const _id = key(company_id, month);
      // Created on its own first: concurrent upserts of a missing document race on FerretDB.
      await Quotas.updateOne({ _id }, { $setOnInsert: { count: 0 } }, { upsert: true }).catch(
        (error: unknown) => {
          if (!isDuplicateKeyError(error)) throw error;
        },
      );
      const filter = limit === null ? { _id } : { _id, count: mongoose.trusted({ $lt: limit }) };
      const result = await Quotas.updateOne(filter, { $inc: { count: 1 } });
      return result.modifiedCount === 1;
    },

    async release(company_id: number, month: string): Promise<void> {
      await Quotas.updateOne(
        { _id: key(company_id, month), count: mongoose.trusted({ $gt: 0 }) },
        { $inc: { count: -1 } },
      );
    },
  };
}

export type CampaignQuotaStore = ReturnType<typeof createCampaignQuotaStore>;
