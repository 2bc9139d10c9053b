import { createBatcher, isDuplicateKeyError } from '@switchboard/service-kit';
import { Schema, type Connection } from 'mongoose';
import { createWriteBatcher } from './write-batcher';

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

type Claim = { created: true } | { created: false; existing: IdempotencyRecord };

/** The write errors of an unordered insert, by the index of the document each is about. */
function writeErrorsByIndex(error: unknown): Map<number, unknown> | undefined {
  const { writeErrors } = (error ?? {}) as { writeErrors?: unknown };
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (list.length === 0) return undefined;
  const byIndex = new Map<number, unknown>();
  for (const writeError of list as { index?: number; err?: { index?: number } }[]) {
    const index = writeError.index ?? writeError.err?.index;
    if (typeof index !== 'number') return undefined;
    byIndex.set(index, writeError);
  }
  return byIndex;
}

export function createIdempotencyStore(db: Connection) {
  const Records = db.model<IdempotencyRecord>('IdempotencyRecord', recordSchema);

  const existing = async (_id: string, error: unknown): Promise<Claim> => {
    const found = await Records.findById(_id).lean<IdempotencyRecord>().exec();
    if (!found) throw error;
    return { created: false, existing: found };
  };

  /**
   * Claims of concurrent sends (every command a campaign hands over has a key) in one unordered
   * `insertMany`: a key stored before fails alone as a duplicate, and only its record is read.
   */
  const claims = createBatcher<Omit<IdempotencyRecord, 'response'>, Claim>({
    maxItems: 500,
    maxWaitMs: 0,
    async run(records) {
      try {
        await Records.insertMany(
          records.map((record) => ({ ...record, response: null })),
          { ordered: false, lean: true },
        );
        return records.map(() => ({ created: true }));
      } catch (error) {
        const failed = writeErrorsByIndex(error);
        if (!failed) {
          // One document, or an error that names none: each claim on its own, as if alone.
          if (records.length === 1 && isDuplicateKeyError(error)) {
            return [await existing(records[0]!._id, error)];
          }
          throw error;
        }
        return Promise.all(
          records.map(async (record, index): Promise<Claim | Error> => {
            const writeError = failed.get(index);
            if (writeError === undefined) return { created: true };
            if (!isDuplicateKeyError(writeError)) return new Error(String(writeError));
            return existing(record._id, writeError).catch((e: unknown) =>
              e instanceof Error ? e : new Error(String(e)),
            );
          }),
        );
      }
    },
  });

  /** The answers of concurrent sends, recorded in one `bulkWrite`. */
  const completions = createWriteBatcher<{
    _id: string;
    response: NonNullable<IdempotencyRecord['response']>;
  }>(async (items) => {
    await Records.bulkWrite(
      items.map(({ _id, response }) => ({
        updateOne: { filter: { _id }, update: { $set: { response } } },
      })),
      { ordered: false },
    );
  });

  return {
    /** Stores the record, or returns the one already stored under this key. */
    claim(record: Omit<IdempotencyRecord, 'response'>): Promise<Claim> {
      return claims.add(record);
    },

    async complete(_id: string, response: NonNullable<IdempotencyRecord['response']>) {
      await completions.add({ _id, response });
    },

    /** Forgets a key whose request had no effect (e.g. refused by a quota), so it may be retried. */
    async forget(_id: string): Promise<void> {
      await Records.deleteOne({ _id });
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
