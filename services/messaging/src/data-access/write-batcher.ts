/**
 * Writes that may share a round trip: an item waits while the previous batch is being written
 * and goes with every item that arrived meanwhile in the next, so concurrent callers share one
 * database command instead of one each, and a lone caller waits for nothing but its own write.
 * `add` settles when the batch holding its item is written (or failed).
 */
export function createWriteBatcher<T>(write: (items: T[]) => Promise<void>, maxBatch = 500) {
  let waiting: { items: T[]; settle: { resolve: () => void; reject: (e: unknown) => void }[] } = {
    items: [],
    settle: [],
  };
  let writing: Promise<void> | undefined;

  function writeNext(): void {
    if (writing || waiting.items.length === 0) return;
    const batch = waiting;
    waiting = { items: [], settle: [] };
    const items = batch.items.splice(0, maxBatch);
    const settle = batch.settle.splice(0, maxBatch);
    // What did not fit goes first in the next batch.
    waiting.items.unshift(...batch.items);
    waiting.settle.unshift(...batch.settle);
    writing = write(items).then(
      () => settle.forEach((s) => s.resolve()),
      (error: unknown) => settle.forEach((s) => s.reject(error)),
    );
    void writing.finally(() => {
      writing = undefined;
      writeNext();
    });
  }

  return {
    add(item: T): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        waiting.items.push(item);
        waiting.settle.push({ resolve, reject });
        writeNext();
      });
    },

    /** Resolves once everything added so far is written (or failed). */
    async drain(): Promise<void> {
      while (writing) await writing;
    },
  };
}

export type WriteBatcher<T> = ReturnType<typeof createWriteBatcher<T>>;
