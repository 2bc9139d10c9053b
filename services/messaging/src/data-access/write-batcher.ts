import { createBatcher } from '@switchboard/service-kit';

/**
 * Writes that may share a round trip: an item waits while the previous batch is being written
 * and goes with every item that arrived meanwhile in the next, so concurrent callers share one
 * database command instead of one each, and a lone caller waits for nothing but its own write.
 * `add` settles when the batch holding its item is written (or failed).
 */
export function createWriteBatcher<T>(write: (items: T[]) => Promise<void>, maxBatch = 500) {
  const batcher = createBatcher<T, void>({
    maxItems: maxBatch,
    maxWaitMs: 0,
    async run(items) {
      await write(items);
      return items.map(() => undefined);
    },
  });
  return {
    add: (item: T): Promise<void> => batcher.add(item),
    /** Resolves once everything added so far is written (or failed). */
    drain: (): Promise<void> => batcher.drain(),
  };
}

export type WriteBatcher<T> = ReturnType<typeof createWriteBatcher<T>>;
