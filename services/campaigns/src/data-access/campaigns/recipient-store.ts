import { isDuplicateKeyError } from '@switchboard/service-kit';
import mongoose, { Schema, type Connection } from 'mongoose';

/**
 * One recipient of a started campaign: `_id` is `<campaign>:<contact>`, so progress events update
 * it by `_id` alone and a redelivered event finds it already moved.
 */
export interface StoredRecipient {
  _id: string;
  campaign_id: number;
  company_id: number;
  contact_id: number;
  state: RecipientState;
  created_at: Date;
}

/** Forward only: queued < sent < delivered < read; failed ends any state but read. */
export const RECIPIENT_STATES = ['queued', 'sent', 'delivered', 'read', 'failed'] as const;
export type RecipientState = (typeof RECIPIENT_STATES)[number];

const recipientSchema = new Schema<StoredRecipient>(
  {
    _id: { type: String, required: true },
    campaign_id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    contact_id: { type: Number, required: true },
    state: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'campaign_recipients', versionKey: false },
);
recipientSchema.index({ campaign_id: 1 });

export const recipientKey = (campaign_id: number, contact_id: number): string =>
  `${campaign_id}:${contact_id}`;

/** An API campaign may message one contact many times: each message is a recipient of its own. */
export const apiRecipientKey = (campaign_id: number, message_id: number): string =>
  `${campaign_id}:m${message_id}`;

export function createRecipientStore(db: Connection) {
  const Recipients = db.model<StoredRecipient>('CampaignRecipient', recipientSchema);
  return {
    init: () => Recipients.init(),

    /** Adds recipients; those already there (a resumed dispatch) are left as they are. */
    async addMany(recipients: StoredRecipient[]): Promise<void> {
      if (recipients.length === 0) return;
      try {
        await Recipients.insertMany(recipients, { ordered: false });
      } catch (error) {
        const { writeErrors } = error as { writeErrors?: { code?: number; errmsg?: string }[] };
        const onlyDuplicates =
          Array.isArray(writeErrors) &&
          writeErrors.every((writeError) => isDuplicateKeyError(writeError));
        if (!onlyDuplicates) throw error;
      }
    },

    find(campaign_id: number, contact_id: number): Promise<StoredRecipient | null> {
      return Recipients.findById(recipientKey(campaign_id, contact_id))
        .lean<StoredRecipient>()
        .exec();
    },

    findByKey(key: string): Promise<StoredRecipient | null> {
      return Recipients.findById(key).lean<StoredRecipient>().exec();
    },

    /** Moves a recipient from exactly `from` to `to`; false when another move came first. */
    async move(key: string, from: RecipientState, to: RecipientState): Promise<boolean> {
      const result = await Recipients.updateOne({ _id: key, state: from }, { $set: { state: to } });
      return result.modifiedCount === 1;
    },

    /**
     * Moves every recipient of `keys` (of `company_id`) that is in one of `from` to `to`, in one
     * `update` command of conditional statements (one per recipient and state left, each naming
     * its `_id`); answers how many moved. Each move is conditional on its own document, so a
     * recipient moves at most once whoever else moves it meanwhile.
     */
    async advanceAll(
      keys: readonly string[],
      company_id: number,
      from: readonly RecipientState[],
      to: RecipientState,
    ): Promise<number> {
      if (keys.length === 0) return 0;
      const result = await Recipients.bulkWrite(
        keys.flatMap((_id) =>
          from.map((state) => ({
            updateOne: { filter: { _id, company_id, state }, update: { $set: { state: to } } },
          })),
        ),
        { ordered: false },
      );
      return result.modifiedCount;
    },

    /** How many recipients of a campaign are in each state, in one pass. */
    async countByState(campaign_id: number): Promise<Record<RecipientState, number>> {
      const rows = await Recipients.aggregate<{ _id: RecipientState; count: number }>([
        { $match: { campaign_id } },
        { $group: { _id: '$state', count: { $sum: 1 } } },
      ]).exec();
      const counts = { queued: 0, sent: 0, delivered: 0, read: 0, failed: 0 };
      for (const row of rows) counts[row._id] = row.count;
      return counts;
    },

    async deleteOfCampaign(campaign_id: number): Promise<void> {
      await Recipients.deleteMany({ campaign_id: mongoose.trusted({ $eq: campaign_id }) });
    },
  };
}

export type RecipientStore = ReturnType<typeof createRecipientStore>;
