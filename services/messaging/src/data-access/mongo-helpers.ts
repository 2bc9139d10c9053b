import mongoose from 'mongoose';

/** sanitizeFilter is on for every query: operators we build ourselves are marked as trusted. */
export const op = <T extends object>(operator: T): T => mongoose.trusted(operator);

/**
 * A write broke a unique index. MongoDB says so with code 11000; FerretDB 1.24 on SQLite does for
 * inserts, but answers an update into a taken key with code 1 and SQLite's own words.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: number; message?: string };
  return code === 11000 || (code === 1 && /UNIQUE constraint failed/.test(message ?? ''));
}

/** Creates a document only if it is missing (first upserts race on FerretDB; E11000 means it exists). */
export async function createIfMissing(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: mongoose.Model<any>,
  _id: string,
  fields: Record<string, unknown>,
): Promise<void> {
  await model
    .updateOne({ _id }, { $setOnInsert: fields }, { upsert: true })
    .catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
}
