import type { Model } from 'mongoose';
import { insertDocuments, type RefusedDocument } from '@switchboard/service-kit';

export type InsertOutcome = 'inserted' | 'duplicate';

interface Pending<T> {
  doc: T;
  resolve: (outcome: InsertOutcome) => void;
  reject: (error: unknown) => void;
}

export interface BatchInserterOptions {
  /** The most documents in one command. */
  maxBatch?: number;
  /**
   * How long the first document of a batch waits for others. 0: only until the end of the current
   * turn of the event loop, so what arrived together (one socket read of broker messages) goes
   * together and a lone document goes at once.
   */
  windowMs?: number;
  /**
   * Commands under way at once; while that many are, documents gather, and when one returns
   * they go `loadedWindowMs` later (`windowMs` if unset) as one command. So under load batches
   * grow with the database's round trip instead of the commands multiplying, and the wait for
   * others applies only then.
   */
  maxInFlight?: number;
  loadedWindowMs?: number;
}

/**
 * Coalesces single inserts from concurrent handlers into one `insert` command (unordered) per short
 * window: the document database writes a batch of 100 about as fast as one document, so under
 * load this removes most of the cost of logging every attempt. Each caller learns whether its
 * document went in or was a duplicate of its `_id`.
 */
export class BatchInserter<T> {
  private queue: Array<Pending<T>> = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private readonly flushing = new Set<Promise<void>>();

  constructor(
    private readonly model: Model<T>,
    private readonly options: BatchInserterOptions = {},
  ) {}

  insert(doc: T): Promise<InsertOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ doc, resolve, reject });
      if (this.queue.length >= (this.options.maxBatch ?? 200)) this.flush();
      else if (this.timer === undefined && !this.saturated()) this.arm(this.options.windowMs);
    });
  }

  /** Waits for every batch under way (on shutdown). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.flushing.size > 0) {
      this.flush(true);
      await Promise.all([...this.flushing]);
    }
  }

  private saturated(): boolean {
    return this.flushing.size >= (this.options.maxInFlight ?? Infinity);
  }

  private arm(windowMs = 2): void {
    this.timer =
      windowMs === 0 ? setImmediate(() => this.flush()) : setTimeout(() => this.flush(), windowMs);
  }

  private disarm(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }

  private flush(evenIfSaturated = false): void {
    this.disarm();
    // At the limit, the batch under way takes the gathered documents along when it returns.
    if (!evenIfSaturated && this.saturated()) return;
    const batch = this.queue.splice(0, this.options.maxBatch ?? 200);
    if (batch.length === 0) return;
    const work = this.write(batch).finally(() => {
      this.flushing.delete(work);
      // What gathered while the database was busy goes after the loaded window (with whatever
      // joins it meanwhile), or at once when a whole batch is waiting.
      if (this.queue.length >= (this.options.maxBatch ?? 200)) this.flush();
      else if (this.queue.length > 0 && this.timer === undefined) {
        this.arm(this.options.loadedWindowMs ?? this.options.windowMs);
      }
    });
    this.flushing.add(work);
    if (this.queue.length > 0 && !this.saturated()) this.arm(this.options.windowMs);
  }

  private async write(batch: Array<Pending<T>>): Promise<void> {
    let refused: Map<number, RefusedDocument>;
    try {
      refused = await insertDocuments(
        this.model,
        batch.map((entry) => entry.doc as object),
      );
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => {
      const refusal = refused.get(index);
      if (!refusal) entry.resolve('inserted');
      else if (refusal.code === DUPLICATE_KEY) entry.resolve('duplicate');
      else entry.reject(new Error(refusal.errmsg ?? 'insert refused'));
    });
  }
}

const DUPLICATE_KEY = 11000;
