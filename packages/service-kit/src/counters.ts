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
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError('count must be a positive integer');
  }
  const counters = connection.collection<CounterDocument>('counters');
  for (let attempt = 0; attempt < 2; attempt++) {
    const counter = await counters.findOneAndUpdate(
      { _id: name },
      { $inc: { seq: count } },
      { returnDocument: 'after' },
    );
    if (counter) return counter.seq - count + 1;
    // First use of this counter. Concurrent upserts through findOneAndUpdate race on FerretDB
    // (duplicate values or E11000), so the document is created on its own, then incremented.
    await counters
      .updateOne({ _id: name }, { $setOnInsert: { seq: 0 } }, { upsert: true })
      .catch((error: { code?: number }) => {
        if (error.code !== 11000) throw error;
      });
  }
  throw new Error(`counter ${name} could not be created`);
}

export function nextId(connection: Connection, name: string): Promise<number> {
  return allocateIds(connection, name, 1);
}
