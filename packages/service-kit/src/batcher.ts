/**
 * Gathers single items (a webhook, a broker message) into batches handled by one call, and gives
 * each caller the outcome of its own item. A batch starts when `maxItems` are waiting, or
 * `maxWaitMs` after the first one arrived; while a batch runs the next one gathers, so under load
 * batches grow by themselves and when idle an item waits at most `maxWaitMs`. Batches run one at a
 * time (`concurrency` 1, the default) unless told otherwise, so that items of one batch are
 * handled before those of the next (a message's statuses stay in arrival order). With
 * `maxWaitMs` 0 an item starts a batch at once when one may run: a lone caller waits for nothing,
 * and callers arriving while a batch runs share the next one.
 */
export interface BatcherOptions<I, R> {
  maxItems: number;
  maxWaitMs: number;
  concurrency?: number;
  /**
   * The least time between the starts of two batches (0, the default: none). A batch starts at
   * once when the last one started longer ago than this, so a lone caller still waits for
   * nothing; under load items gather for that long and share one batch.
   */
  spacingMs?: number;
  /**
   * Handles a batch: answers one outcome per item, in order — a result, or an Error for an item
   * that failed alone. Throwing fails every item of the batch.
   */
  run(items: I[]): Promise<(R | Error)[]>;
}

interface Waiting<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export function createBatcher<I, R>(options: BatcherOptions<I, R>) {
  const concurrency = options.concurrency ?? 1;
  const spacingMs = options.spacingMs ?? 0;
  let lastStart = -Infinity;
  let waiting: Waiting<I, R>[] = [];
  let running = 0;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;

  /** Starts what may run; `now` disregards the spacing (a drain). */
  function startDue(now = false): void {
    while (running < concurrency && waiting.length > 0) {
      const wait = now ? 0 : lastStart + spacingMs - Date.now();
      if (wait > 0) {
        timer ??= setTimeout(() => {
          timer = undefined;
          startDue();
        }, wait);
        return;
      }
      clearTimeout(timer);
      timer = undefined;
      lastStart = Date.now();
      const batch = waiting.splice(0, options.maxItems);
      running += 1;
      const done = runBatch(batch).finally(() => {
        running -= 1;
        inFlight.delete(done);
        // What gathered meanwhile goes at once: it has waited for a batch already.
        startDue();
      });
      inFlight.add(done);
    }
  }

  async function runBatch(batch: Waiting<I, R>[]): Promise<void> {
    try {
      const outcomes = await options.run(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => {
        const outcome = outcomes[index];
        if (outcome instanceof Error) entry.reject(outcome);
        else entry.resolve(outcome as R);
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }

  return {
    /** Resolves with this item's outcome once the batch holding it has run. */
    add(item: I): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (running >= concurrency) return; // the running batch's end starts the next
        if (waiting.length >= options.maxItems || options.maxWaitMs === 0) startDue();
        else timer ??= setTimeout(startDue, options.maxWaitMs);
      });
    },
    /** Items waiting for a batch to start. */
    get waiting(): number {
      return waiting.length;
    },
    /** Resolves once every item added so far has had its batch run (at shutdown). */
    async drain(): Promise<void> {
      while (waiting.length > 0 || inFlight.size > 0) {
        if (inFlight.size === 0) startDue(true); // gathering behind a timer: go now
        await Promise.all(inFlight);
      }
    },
    /** Fails what is still waiting (at shutdown: a broker message goes back, a request errs). */
    abandon(error: Error): void {
      clearTimeout(timer);
      timer = undefined;
      const left = waiting;
      waiting = [];
      for (const entry of left) entry.reject(error);
    },
  };
}

export type Batcher<I, R> = ReturnType<typeof createBatcher<I, R>>;
