import { isDuplicateKeyError } from '@switchboard/service-kit';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One organization's AI bot settings. `_id` is `String(company_id)`: every read (one
 * per inbound message that reaches the bot) and write is by `_id`, the local database's fast
 * path. The API key is kept only sealed (AES-256-GCM, see service-kit's SecretBox).
 */
export interface StoredAiBotSettings {
  _id: string;
  company_id: number;
  /** A base URL (`https://api.openai.com/v1`); the bot posts to `<endpoint>/chat/completions`. */
  endpoint: string | null;
  model: string | null;
  system_prompt: string;
  enabled: boolean;
  api_key_sealed: string | null;
  api_key_last_four: string | null;
  updated_at: Date;
}

export type AiBotSettingsChange = Partial<Omit<StoredAiBotSettings, '_id' | 'company_id'>>;

const settingsSchema = new Schema<StoredAiBotSettings>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    endpoint: { type: String, default: null },
    model: { type: String, default: null },
    system_prompt: { type: String, default: '' },
    enabled: { type: Boolean, required: true },
    api_key_sealed: { type: String, default: null },
    api_key_last_four: { type: String, default: null },
    updated_at: { type: Date, required: true },
  },
  { collection: 'ai_bot_settings', versionKey: false },
);

export function createAiBotSettingsStore(db: Connection) {
  // Registered once per connection; a second store on it (a test's own responder) reuses the model.
  const Settings =
    (db.models.AiBotSettings as Model<StoredAiBotSettings> | undefined) ??
    db.model<StoredAiBotSettings>('AiBotSettings', settingsSchema);

  return {
    async find(company_id: number): Promise<StoredAiBotSettings | null> {
      return Settings.findById(String(company_id)).lean<StoredAiBotSettings>().exec();
    },

    /** Sets the given fields, creating the organization's settings on first use. */
    async update(company_id: number, change: AiBotSettingsChange): Promise<StoredAiBotSettings> {
      const write = () =>
        Settings.findOneAndUpdate(
          { _id: String(company_id) },
          { $set: change, $setOnInsert: { company_id } },
          { upsert: true, returnDocument: 'after', lean: true },
        ).exec();
      // Two first writes of one organization at once may race on the insert: the loser updates.
      const saved = await write().catch((error: unknown) => {
        if (isDuplicateKeyError(error)) return write();
        throw error;
      });
      return saved as StoredAiBotSettings;
    },
  };
}

export type AiBotSettingsStore = ReturnType<typeof createAiBotSettingsStore>;
