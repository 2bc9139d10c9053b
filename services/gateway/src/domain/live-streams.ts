import type { LiveFeedBatch } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';

export type FeedEntry = LiveFeedBatch['entries'][number];

/** One open stream of a signed-in user, as the registry sees it. */
export interface LiveStream {
  company_id: number;
  user_id: number;
  sessionHash: string;
  /** Hands the stream an event of its organization (it skips ids it has passed). */
  deliver(entry: FeedEntry): void;
  /** A comment line, so that proxies and the browser see the connection alive. */
  heartbeat(): void;
  /** Ends the stream; the client reconnects (or, signed out, is refused). */
  end(reason: string): void;
}

export interface LiveStreamLimits {
  perUser: number;
  perOrganization: number;
}

/**
 * The streams open on this replica, by organization: events of an organization reach only its
 * own streams. Holds the caps per user and per organization (this replica's count), and ends
 * streams whose session has ended.
 */
export function createLiveStreams(limits: LiveStreamLimits) {
  const byOrganization = new Map<number, Set<LiveStream>>();
  const perUser = new Map<number, number>();

  function remove(stream: LiveStream): void {
    const streams = byOrganization.get(stream.company_id);
    if (!streams?.delete(stream)) return;
    if (streams.size === 0) byOrganization.delete(stream.company_id);
    const count = (perUser.get(stream.user_id) ?? 1) - 1;
    if (count === 0) perUser.delete(stream.user_id);
    else perUser.set(stream.user_id, count);
  }

  function all(): LiveStream[] {
    return [...byOrganization.values()].flatMap((streams) => [...streams]);
  }

  return {
    /** Counts the stream in, or refuses it (429) past a cap. */
    add(stream: LiveStream): void {
      const organization = byOrganization.get(stream.company_id) ?? new Set<LiveStream>();
      if ((perUser.get(stream.user_id) ?? 0) >= limits.perUser) {
        throw new AppError(
          'rate_limited',
          `Too many live streams open for this user (at most ${limits.perUser}): close another tab first`,
        );
      }
      if (organization.size >= limits.perOrganization) {
        throw new AppError(
          'rate_limited',
          `Too many live streams open for this organization (at most ${limits.perOrganization})`,
        );
      }
      organization.add(stream);
      byOrganization.set(stream.company_id, organization);
      perUser.set(stream.user_id, (perUser.get(stream.user_id) ?? 0) + 1);
    },

    remove,

    /** Each entry to the open streams of its own organization, in the batch's order. */
    deliver(batch: LiveFeedBatch): void {
      for (const entry of batch.entries) {
        const streams = byOrganization.get(entry.company_id);
        if (streams) for (const stream of [...streams]) stream.deliver(entry);
      }
    },

    heartbeat(): void {
      for (const stream of all()) stream.heartbeat();
    },

    /** The sessions behind the open streams, each once. */
    sessionHashes(): string[] {
      return [...new Set(all().map((stream) => stream.sessionHash))];
    },

    /**
     * Ends the streams of the sessions `checked` that are not `signedIn` (a stream opened while
     * the check ran was not checked, and stays).
     */
    endEnded(checked: string[], signedIn: Set<string>, reason: string): void {
      const ended = new Set(checked.filter((hash) => !signedIn.has(hash)));
      if (ended.size === 0) return;
      for (const stream of all()) if (ended.has(stream.sessionHash)) stream.end(reason);
    },

    endAll(reason: string): void {
      for (const stream of all()) stream.end(reason);
    },

    /** No stream open here (an organization's set is dropped with its last stream). */
    get empty(): boolean {
      return byOrganization.size === 0;
    },

    get size(): number {
      return all().length;
    },
  };
}

export type LiveStreams = ReturnType<typeof createLiveStreams>;
