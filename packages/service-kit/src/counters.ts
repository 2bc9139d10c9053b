import type { Connection } from 'mongoose';

interface CounterDocument {
  _id: string;
  seq: number;
}

/**
 * Allocates `count` consecutive integer ids for `name` in one atomic step and returns the first.
 * Ids are unique per counter across organizations (ARCHITECTURE §4).
 */
export async function allocateIds(
  connection: Connection,
  name: string,
  count = 1,
): Promise<number> {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError('count must be a positive integer');
  const counter = await connection
    .collection<CounterDocument>('counters')
    .findOneAndUpdate(
      { _id: name },
      { $inc: { seq: count } },
      { upsert: true, returnDocument: 'after' },
    );
  if (!counter) throw new Error(`counter ${name} was not returned`);
  return counter.seq - count + 1;
}

export function nextId(connection: Connection, name: string): Promise<number> {
  return allocateIds(connection, name, 1);
}
