interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(error: unknown): void;
}

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
  const waiting: Waiting<T>[] = [];
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastStart = -Infinity;

  function startDue(): void {
    if (running || waiting.length === 0) return;
    const wait = lastStart + spacingMs - Date.now();
    if (wait > 0) {
      timer ??= setTimeout(() => {
        timer = undefined;
        startDue();
      }, wait);
      return;
    }
    const batch = waiting.splice(0, maxBatch);
    lastStart = Date.now();
    running = run(batch).finally(() => {
      running = undefined;
      // What gathered meanwhile goes once due: it has waited for a write already.
      startDue();
    });
  }

  async function run(batch: Waiting<T>[]): Promise<void> {
    try {
      await write(batch.map((entry) => entry.item));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }

  return {
    add(item: T): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        startDue();
      });
    },
    /** Resolves once everything added so far is written (or failed); what is waiting goes now. */
    async drain(): Promise<void> {
      while (waiting.length > 0 || running) {
        if (!running) {
          clearTimeout(timer);
          timer = undefined;
          lastStart = -Infinity;
          startDue();
        }
        await running;
      }
    },
  };
}

export type WriteBatcher<T> = ReturnType<typeof createWriteBatcher<T>>;
