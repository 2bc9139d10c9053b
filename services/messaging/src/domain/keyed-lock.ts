/**
 * Runs work for one key at a time in this process (e.g. one message's status changes), so that a
 * read-then-write by `_id` is not interleaved with another for the same record here.
 */
export function createKeyedLock() {
  const tails = new Map<string, Promise<unknown>>();
  return async function withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

export type KeyedLock = ReturnType<typeof createKeyedLock>;
