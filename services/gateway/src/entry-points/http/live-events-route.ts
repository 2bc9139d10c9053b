import type { Request, Response, Router } from 'express';
import { LIVE_EVENTS_PATH, LiveEventIdSchema, LiveEventsQuerySchema } from '@switchboard/contracts';
import { AppError, parseInput, type Logger } from '@switchboard/service-kit';
import type { LiveCatchUp } from '../../domain/live-catch-up';
import type { FeedEntry, LiveStream, LiveStreams } from '../../domain/live-streams';
import { signedInSession, type CallerAuthDeps } from './authenticate-caller';

/** How long EventSource waits before reconnecting (the `retry:` field). */
const RECONNECT_AFTER_MS = 2_000;

export interface LiveStreamOptions {
  /** Bytes a stream may have waiting for a slow client before it is ended. */
  maxBufferedBytes: number;
  /** Live events a stream may hold while it catches up from the held feed before it is ended. */
  maxPendingEvents: number;
}

function frame(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/**
 * One client's server-sent events. Counted in before its first byte so that no event of the
 * feed is missed while it catches up from the held feed: live events wait in `pending` until
 * it has been read, and ids at or below the last one sent are skipped.
 */
class LiveConnection implements LiveStream {
  private lastSent = 0;
  private caughtUp = false;
  private pending: FeedEntry[] = [];
  ended = false;

  constructor(
    readonly company_id: number,
    readonly user_id: number,
    readonly sessionHash: string,
    private readonly res: Response,
    private readonly options: LiveStreamOptions,
    private readonly onEnd: (stream: LiveConnection, reason: string) => void,
  ) {}

  deliver(entry: FeedEntry): void {
    if (this.ended) return;
    if (!this.caughtUp) {
      this.pending.push(entry);
      if (this.pending.length > this.options.maxPendingEvents) this.end('too far behind');
      return;
    }
    this.send(entry);
  }

  heartbeat(): void {
    if (!this.ended && this.caughtUp) this.write(': keep-alive\n\n');
  }

  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.pending = [];
    // A client too slow to read has a full buffer: dropped at once rather than flushed.
    if (reason === 'too slow') this.res.destroy();
    else this.res.end();
    this.onEnd(this, reason);
  }

  /**
   * Sends what the client missed after `after` (or the starting id), from the feed this replica
   * holds, then what came meanwhile.
   */
  async start(catchUp: LiveCatchUp, after: number | undefined): Promise<void> {
    const start = catchUp.start(after);
    if (start.kind === 'reset') {
      // Ids never seen here, or events no longer held: the client must reload.
      this.control('reset', start.id);
    } else if (start.kind === 'ready') {
      this.control('ready', start.id);
    } else {
      this.lastSent = start.id;
      this.control('ready', start.id);
      for (const entry of catchUp.eventsAfter(this.company_id, start.id)) {
        if (this.ended) return;
        if (!this.write(frame(entry.seq, entry.event, entry.body))) await this.drained();
        this.lastSent = entry.seq;
      }
    }
    if (this.ended) return;
    this.caughtUp = true;
    const pending = this.pending;
    this.pending = [];
    for (const entry of pending) this.send(entry);
  }

  /** Resolves once the client has read what was written, or has gone. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }

  private control(event: 'ready' | 'reset', id: number): void {
    this.lastSent = Math.max(this.lastSent, id);
    this.write(frame(id, event, JSON.stringify({ timestamp: new Date().toISOString() })));
  }

  private send(entry: FeedEntry): void {
    if (entry.seq <= this.lastSent) return;
    this.lastSent = entry.seq;
    this.write(frame(entry.seq, entry.event, entry.body));
  }

  private write(text: string): boolean {
    if (this.ended) return false;
    const flushed = this.res.write(text);
    if (this.res.writableLength > this.options.maxBufferedBytes) this.end('too slow');
    return flushed;
  }
}

/** Where to resume: the `Last-Event-ID` header EventSource sends on a reconnect, or the query's. */
function resumeAfter(req: Request): number | undefined {
  const { last_event_id } = parseInput(LiveEventsQuerySchema, req.query);
  const header = req.header('last-event-id');
  const given =
    header === undefined || header === ''
      ? last_event_id
      : parseInput(LiveEventIdSchema, header.trim());
  return given === undefined ? undefined : Number(given);
}

/** `GET /api/svc/events/stream`: the signed-in user's live updates (server-sent events). */
export function liveEventsRoute(
  router: Router,
  deps: Pick<CallerAuthDeps, 'sessions' | 'cookie' | 'limits'> & {
    streams: LiveStreams;
    catchUp: LiveCatchUp;
    options: LiveStreamOptions;
    /** False while this replica cannot follow the feed (no broker connection). */
    isFollowing(): boolean;
    logger: Logger;
  },
): void {
  router.get(LIVE_EVENTS_PATH, async (req, res) => {
    const signedIn = await signedInSession(req, deps);
    const after = resumeAfter(req);
    if (!deps.isFollowing()) {
      throw new AppError('dependency_unavailable', 'Live updates are unavailable; retry shortly');
    }
    const connection = new LiveConnection(
      signedIn.organization.company_id,
      signedIn.user.user_id,
      signedIn.sessionHash,
      res,
      deps.options,
      (stream, reason) => {
        deps.streams.remove(stream);
        deps.logger.debug({ user_id: stream.user_id, reason }, 'live stream ended');
      },
    );
    deps.streams.add(connection);
    req.socket.setNoDelay(true);
    res.once('close', () => connection.end('client gone'));
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // Proxies (nginx) must pass each frame on as it comes rather than buffer the answer.
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${RECONNECT_AFTER_MS}\n\n`);
    try {
      await connection.start(deps.catchUp, after);
    } catch (error) {
      deps.logger.warn({ err: error }, 'live stream could not catch up');
      connection.end('catch-up failed');
    }
  });
}
