import type { HeldFeed } from './held-feed';
import type { FeedEntry } from './live-streams';

/**
 * Where a stream starts: `ready` at the last id this replica has seen (no id to resume from),
 * `reset` when the client's id was never seen here or names events no longer held (it must
 * reload), or `resume` after the client's id, with what it missed still to send.
 */
export type StreamStart =
  { kind: 'ready'; id: number } | { kind: 'reset'; id: number } | { kind: 'resume'; id: number };

/** The feed held in memory as a stream reads it: where to start, and what it missed. */
export function createLiveCatchUp(feed: HeldFeed) {
  return {
    start(after: number | undefined): StreamStart {
      const last = feed.tail;
      if (after === undefined) return { kind: 'ready', id: last };
      if (!feed.holdsAfter(after)) return { kind: 'reset', id: last };
      return { kind: 'resume', id: after };
    },

    /** The organization's events after `after`, in order. */
    eventsAfter(company_id: number, after: number): Iterable<FeedEntry> {
      return feed.eventsAfter(company_id, after);
    },
  };
}

export type LiveCatchUp = ReturnType<typeof createLiveCatchUp>;
