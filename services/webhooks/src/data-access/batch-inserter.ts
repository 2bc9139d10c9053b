import type { Model, mongo } from 'mongoose';

export type InsertOutcome = 'inserted' | 'duplicate';

interface Pending<T> {
  doc: T;
  resolve: (outcome: InsertOutcome) => void;
  reject: (error: unknown) => void;
}

/** The `insert` command's answer (or the error thrown with it): which documents were refused. */
interface InsertAnswer {
  writeErrors?: Array<{ index: number; code?: number; errmsg?: string }>;
  writeConcernError?: { errmsg?: string };
}

/** The `writeConcern` field of a command, from the driver's settings of the connection. */
function writeConcernOf(concern: mongo.WriteConcern | undefined): { writeConcern?: object } {
  if (!concern) return {};
  const fields = { w: concern.w, wtimeout: concern.wtimeoutMS, j: concern.journal };
  const set = Object.entries(fields).filter(([, value]) => value !== undefined && value !== null);
  return set.length > 0 ? { writeConcern: Object.fromEntries(set) } : {};
}

/**
 * Coalesces single inserts from concurrent handlers into one `insert` command (unordered) per short
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
    let failures: Map<number, { code?: number; errmsg?: string }>;
    try {
      // One `insert` command on the driver's database, not mongoose's collection nor the driver's
      // insertMany: the rows are plain and already valid, and the bulk-write machinery (sizing
      // every document, then serializing it again, a result object per batch) cost as much CPU
      // as the write itself. Unordered: one duplicate does not stop the rest.
      const db = this.model.db.db!;
      const answer = (await db.command({
        insert: this.model.collection.collectionName,
        documents: batch.map((entry) => entry.doc),
        ordered: false,
        // A command is sent as written: the connection's write concern (w=majority in
        // production) is added here, as the driver's own insert would.
        ...writeConcernOf(db.writeConcern),
      })) as InsertAnswer;
      if (answer.writeConcernError) {
        throw new Error(
          `insert not acknowledged: ${answer.writeConcernError.errmsg ?? 'write concern'}`,
        );
      }
      failures = writeFailures(answer);
    } catch (error) {
      failures = writeFailures(error as InsertAnswer);
      if (failures.size === 0) {
        for (const entry of batch) entry.reject(error);
        return;
      }
    }
    batch.forEach((entry, index) => {
      if (!failures.has(index)) entry.resolve('inserted');
      else if (failures.get(index)!.code === DUPLICATE_KEY) entry.resolve('duplicate');
      else entry.reject(new Error(failures.get(index)!.errmsg ?? 'insert refused'));
    });
  }
}

const DUPLICATE_KEY = 11000;

const writeFailures = (answer: InsertAnswer) =>
  new Map((answer.writeErrors ?? []).map((failure) => [failure.index, failure]));
