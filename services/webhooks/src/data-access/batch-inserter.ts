import type { Model } from 'mongoose';

export type InsertOutcome = 'inserted' | 'duplicate';

interface Pending<T> {
  doc: T;
  resolve: (outcome: InsertOutcome) => void;
  reject: (error: unknown) => void;
}

interface BulkError {
  code?: number;
  writeErrors?: Array<{ index: number; code?: number }>;
}

/**
 * Coalesces single inserts from concurrent handlers into one `insertMany` (unordered) per short
 * window: the document database writes a batch of 100 about as fast as one document, so under
 * load this removes most of the cost of logging every attempt. Each caller learns whether its
 * document went in or was a duplicate of its `_id`.
 */
export class BatchInserter<T> {
  private queue: Array<Pending<T>> = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly flushing = new Set<Promise<void>>();

  constructor(
    private readonly model: Model<T>,
    private readonly options: { maxBatch?: number; windowMs?: number } = {},
  ) {}

  insert(doc: T): Promise<InsertOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ doc, resolve, reject });
      if (this.queue.length >= (this.options.maxBatch ?? 200)) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.options.windowMs ?? 2);
    });
  }

  /** Waits for every batch under way (on shutdown). */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all([...this.flushing]);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const work = this.write(batch).finally(() => this.flushing.delete(work));
    this.flushing.add(work);
  }

  private async write(batch: Array<Pending<T>>): Promise<void> {
    try {
      // The driver's collection, not mongoose documents: the rows are plain and already valid.
      await this.model.collection.insertMany(
        batch.map((entry) => entry.doc as object),
        { ordered: false },
      );
      for (const entry of batch) entry.resolve('inserted');
    } catch (error) {
      const failures = new Map(
        ((error as BulkError).writeErrors ?? []).map((failure) => [failure.index, failure.code]),
      );
      if (failures.size === 0) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      batch.forEach((entry, index) => {
        if (!failures.has(index)) entry.resolve('inserted');
        else if (failures.get(index) === 11000) entry.resolve('duplicate');
        else entry.reject(error);
      });
    }
  }
}
