import { LiveFeedBatchSchema } from '@switchboard/contracts';
import type { FeedEntry } from './live-streams';

/** One batch of the feed as it arrived: its bytes, parsed only when a reconnect reads it. */
interface HeldBatch {
  first: number;
  last: number;
  receivedAt: number;
  content: Buffer;
}

export interface HeldFeedLimits {
  retentionMs: number;
  maxEvents: number;
}

/**
 * The feed's recent batches, kept in this replica's memory for its streams' reconnects: every
 * replica receives every batch, so a client reconnecting to any of them finds what it missed
 * there, and nothing is written to the database per event. `coveredAfter` is the id after which
 * every batch since is held; it moves up as old batches are dropped (by age or count), and a
 * lost feed (batches possibly missed) drops everything.
 */
export function createHeldFeed(limits: HeldFeedLimits) {
  let batches: HeldBatch[] = [];
  let held = 0;
  /** Undefined until the first batch since the feed was (re)joined. */
  let coveredAfter: number | undefined;
  let tail = 0;

  function dropOld(now: number): void {
    let drop = 0;
    while (
      drop < batches.length &&
      (held > limits.maxEvents || now - batches[drop]!.receivedAt > limits.retentionMs)
    ) {
      const batch = batches[drop]!;
      held -= batch.last - batch.first + 1;
      coveredAfter = batch.last;
      drop += 1;
    }
    if (drop > 0) batches = batches.slice(drop);
  }

  return {
    /** A batch of the feed, its ids `first` to `last` (the writer gives a batch ids in a row). */
    add(content: Buffer, first: number, last: number, now = Date.now()): void {
      coveredAfter ??= first - 1;
      batches.push({ first, last, receivedAt: now, content });
      held += last - first + 1;
      tail = Math.max(tail, last);
      dropOld(now);
    },

    /** Batches may have been missed (the feed was lost): none held can be trusted as complete. */
    forget(): void {
      batches = [];
      held = 0;
      coveredAfter = undefined;
    },

    /** The highest id seen on the feed (0 before any). */
    get tail(): number {
      return tail;
    },

    /**
     * Whether every event after `after` that this replica was sent is still held: false when
     * `after` is beyond the last id seen (never given), or older than what is kept.
     */
    holdsAfter(after: number, now = Date.now()): boolean {
      dropOld(now);
      return after <= tail && coveredAfter !== undefined && after >= coveredAfter;
    },

    /** The organization's held events after `after`, in order. */
    *eventsAfter(company_id: number, after: number): Generator<FeedEntry> {
      for (const batch of [...batches]) {
        if (batch.last <= after) continue;
        const parsed = LiveFeedBatchSchema.safeParse(JSON.parse(batch.content.toString('utf8')));
        if (!parsed.success) continue;
        for (const entry of parsed.data.entries) {
          if (entry.seq > after && entry.company_id === company_id) yield entry;
        }
      }
    },
  };
}

export type HeldFeed = ReturnType<typeof createHeldFeed>;
