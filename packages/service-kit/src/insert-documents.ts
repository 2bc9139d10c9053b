import type { Connection, mongo } from 'mongoose';

/** A document the `insert` command refused, by its place in the batch. */
export interface RefusedDocument {
  index: number;
  code?: number;
  errmsg?: string;
}

/** The `insert` command's answer (or the error thrown with it): which documents were refused. */
interface InsertAnswer {
  writeErrors?: RefusedDocument[];
  writeConcernError?: { errmsg?: string };
}

/** The `writeConcern` field of a command, from the driver's settings of the connection. */
function writeConcernOf(concern: mongo.WriteConcern | undefined): { writeConcern?: object } {
  if (!concern) return {};
  const fields = { w: concern.w, wtimeout: concern.wtimeoutMS, j: concern.journal };
  const set = Object.entries(fields).filter(([, value]) => value !== undefined && value !== null);
  return set.length > 0 ? { writeConcern: Object.fromEntries(set) } : {};
}

const refusalsOf = (answer: InsertAnswer) =>
  new Map((answer.writeErrors ?? []).map((refused) => [refused.index, refused]));

/**
 * Inserts plain, already valid documents with one unordered `insert` command on the driver's
 * database, and returns the ones refused (a duplicate `_id` or unique key among them) by their
 * place in `documents`; throws when the command as a whole failed. Not mongoose's collection nor
 * the driver's insertMany: the bulk-write machinery behind them (sizing every document, then
 * serializing it again, a result object per batch) cost as much CPU as the write itself.
 */
export async function insertDocuments(
  model: { db: Connection; collection: { collectionName: string } },
  documents: object[],
): Promise<Map<number, RefusedDocument>> {
  const db = model.db.db!;
  let answer: InsertAnswer;
  try {
    answer = (await db.command({
      insert: model.collection.collectionName,
      documents,
      ordered: false,
      // A command is sent as written: the connection's write concern (w=majority in
      // production) is added here, as the driver's own insert would.
      ...writeConcernOf(db.writeConcern),
    })) as InsertAnswer;
  } catch (error) {
    const refused = refusalsOf(error as InsertAnswer);
    if (refused.size === 0) throw error;
    return refused;
  }
  if (answer.writeConcernError) {
    throw new Error(
      `insert not acknowledged: ${answer.writeConcernError.errmsg ?? 'write concern'}`,
    );
  }
  return refusalsOf(answer);
}
