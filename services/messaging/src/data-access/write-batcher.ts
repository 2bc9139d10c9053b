import { createBatcher } from '@switchboard/service-kit';

export interface WriteBatcherOptions {
  /** Most items in one write; the rest go in the following one. */
  maxBatch?: number;
  /**
   * The least time between the starts of two writes. A write starts at once when the last one
   * started longer ago than this (so a lone caller waits for nothing), else when it is due: under
   * load, items gather for that long and share one write. 0: as soon as the previous write ended.
   */
  spacingMs?: number;
}

/**
 * Writes that may share a round trip: an item waits while the previous batch is being written
 * (and, with `spacingMs`, until the next write is due) and goes with every item that arrived
 * meanwhile in the next, so concurrent callers share one database command instead of one each,
 * and a lone caller waits for nothing but its own write. `add` settles when the batch holding its
 * item is written (or failed).
 */
export function createWriteBatcher<T>(
  write: (items: T[]) => Promise<void>,
  options: number | WriteBatcherOptions = {},
) {
  const { maxBatch = 500, spacingMs = 0 } =
    typeof options === 'number' ? { maxBatch: options } : options;
  const batcher = createBatcher<T, void>({
    maxItems: maxBatch,
    maxWaitMs: 0,
    spacingMs,
    async run(items) {
      await write(items);
      return items.map(() => undefined);
    },
  });
  return {
    add: (item: T): Promise<void> => batcher.add(item),
    /** Resolves once everything added so far is written (or failed); what is waiting goes now. */
    drain: (): Promise<void> => batcher.drain(),
  };
}

export type WriteBatcher<T> = ReturnType<typeof createWriteBatcher<T>>;
