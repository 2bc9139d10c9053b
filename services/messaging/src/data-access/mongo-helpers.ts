import { isDuplicateKeyError } from '@switchboard/service-kit';
import mongoose from 'mongoose';

/** sanitizeFilter is on for every query: operators we build ourselves are marked as trusted. */
export const op = <T extends object>(operator: T): T => mongoose.trusted(operator);

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

/** A bulk write whose only failures are duplicate keys (documents stored before). */
export function onlyDuplicateKeyErrors(error: unknown): boolean {
  const { writeErrors } = (error ?? {}) as { writeErrors?: unknown };
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.length > 0 && list.every((e) => isDuplicateKeyError(e));
}
