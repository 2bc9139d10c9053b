import { isDuplicateKeyError } from '@switchboard/service-kit';
import mongoose, { Schema, type Connection } from 'mongoose';

/** Campaigns started per organization and calendar month (UTC): `_id` `<company>:<month>`. */
interface CampaignQuota {
  _id: string;
  count: number;
  /** The start attempts that took a place, by name: asked twice takes one, given back once. */
  starts?: Record<string, true>;
}

const quotaSchema = new Schema<CampaignQuota>(
  {
    _id: { type: String, required: true },
    count: { type: Number, required: true },
    starts: { type: Schema.Types.Mixed, default: undefined },
  },
  { collection: 'campaign_quotas', versionKey: false },
);

export function createCampaignQuotaStore(db: Connection) {
  const Quotas = db.model<CampaignQuota>('CampaignQuota', quotaSchema);
  const key = (company_id: number, month: string) => `${company_id}:${month}`;

  return {
    /**
     * Takes one campaign of the month for start attempt `attempt`, atomically, only below
     * `limit` (null: no limit); true also when that attempt already holds its place.
     */
    async reserve(
      company_id: number,
      month: string,
      limit: number | null,
      attempt: string,
    ): Promise<boolean> {
      const _id = key(company_id, month);
      // Created on its own first: concurrent upserts of a missing document race on FerretDB.
      await Quotas.updateOne({ _id }, { $setOnInsert: { count: 0 } }, { upsert: true }).catch(
        (error: unknown) => {
          if (!isDuplicateKeyError(error)) throw error;
        },
      );
      const held = `starts.${attempt}`;
      const filter = {
        _id,
        [held]: mongoose.trusted({ $exists: false }),
        ...(limit === null ? {} : { count: mongoose.trusted({ $lt: limit }) }),
      };
      const result = await Quotas.updateOne(filter, { $inc: { count: 1 }, $set: { [held]: true } });
      return result.modifiedCount === 1 || (await Quotas.exists({ _id, [held]: true })) !== null;
    },

    /** Gives start attempt `attempt`'s place back, once; nothing when it holds none. */
    async release(company_id: number, month: string, attempt: string): Promise<void> {
      const held = `starts.${attempt}`;
      await Quotas.updateOne(
        { _id: key(company_id, month), [held]: true, count: mongoose.trusted({ $gt: 0 }) },
        { $inc: { count: -1 }, $unset: { [held]: '' } },
      );
    },

    /** Campaigns the organization started in `month`. */
    async used(company_id: number, month: string): Promise<number> {
      const quota = await Quotas.findById(key(company_id, month)).lean<CampaignQuota>().exec();
      return quota?.count ?? 0;
    },
  };
}

export type CampaignQuotaStore = ReturnType<typeof createCampaignQuotaStore>;
