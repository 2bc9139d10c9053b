import { isDuplicateKeyError } from '@switchboard/service-kit';
import { Schema, type Connection } from 'mongoose';

/** The first answer to a request made with an idempotency key, and the message it is about. */
export interface IdempotencyRecord {
  /** `<company_id>:<scope>:<key>`: API keys and command keys never collide. */
  _id: string;
  company_id: number;
  /** SHA-256 of the request: the same key with another request is refused. */
  fingerprint: string;
  message_id: number;
  /** The answer to replay; null while the first request is running. */
  response: { http_status: number; body: Record<string, unknown> } | null;
  created_at: Date;
}

const recordSchema = new Schema<IdempotencyRecord>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    fingerprint: { type: String, required: true },
    message_id: { type: Number, required: true },
    response: { type: Schema.Types.Mixed, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'idempotency_keys', versionKey: false },
);

export const idempotencyId = (company_id: number, scope: 'api' | 'command', key: string) =>
  `${company_id}:${scope}:${key}`;

export function createIdempotencyStore(db: Connection) {
  const Records = db.model<IdempotencyRecord>('IdempotencyRecord', recordSchema);

  return {
    /** Stores the record, or returns the one already stored under this key. */
    async claim(
      record: Omit<IdempotencyRecord, 'response'>,
    ): Promise<{ created: true } | { created: false; existing: IdempotencyRecord }> {
      try {
        await Records.create({ ...record, response: null });
        return { created: true };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const existing = await Records.findById(record._id).lean<IdempotencyRecord>().exec();
        if (!existing) throw error;
        return { created: false, existing };
      }
    },

    async complete(_id: string, response: NonNullable<IdempotencyRecord['response']>) {
      await Records.updateOne({ _id }, { $set: { response } });
    },

    /** Forgets a key whose request had no effect (e.g. refused by a quota), so it may be retried. */
    async forget(_id: string): Promise<void> {
      await Records.deleteOne({ _id });
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
