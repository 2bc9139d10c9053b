import type { LiveEventLog } from '../data-access/live-event-log';
import type { FeedEntry } from './live-streams';

/** Events read from the log per query while a reconnecting client catches up. */
const CATCH_UP_PAGE = 500;

/**
 * Where a stream starts: `ready` at the log's last id (no id to resume from), `reset` when the
 * client's id was never given by this log or names events no longer kept (it must reload), or
 * `resume` after the client's id, with what it missed still to read.
 */
export type StreamStart =
  { kind: 'ready'; id: number } | { kind: 'reset'; id: number } | { kind: 'resume'; id: number };

/** The live event log as a stream reads it: where to start, and what an organization missed. */
export function createLiveCatchUp(log: LiveEventLog) {
  return {
    async start(after: number | undefined): Promise<StreamStart> {
      const last = await log.lastSeq();
      if (after === undefined) return { kind: 'ready', id: last };
      if (after > last || after + 1 < (await log.floor())) return { kind: 'reset', id: last };
      return { kind: 'resume', id: after };
    },

    /** The organization's events after `after`, in order, read a page at a time. */
    async *eventsAfter(company_id: number, after: number): AsyncGenerator<FeedEntry> {
      let cursor = after;
      for (;;) {
        const page = await log.readAfter(company_id, cursor, CATCH_UP_PAGE);
        for (const entry of page) {
          yield entry;
          cursor = entry.seq;
        }
        if (page.length < CATCH_UP_PAGE) return;
      }
    },
  };
}

export type LiveCatchUp = ReturnType<typeof createLiveCatchUp>;
