import type { Router } from 'express';
import type { Connection } from 'mongoose';
import { startPeriodicJob, type Broker, type Leases, type Logger } from '@switchboard/service-kit';
import type { GatewayConfig } from './config';
import { createLiveEventLog } from './data-access/live-event-log';
import { createLiveCatchUp } from './domain/live-catch-up';
import { createLiveStreams } from './domain/live-streams';
import type { Sessions } from './domain/sessions';
import { createLiveEventWriter } from './domain/write-live-events';
import { consumeLiveEvents, followLiveFeed } from './entry-points/broker/live-feed';
import { liveEventsRoute } from './entry-points/http/live-events-route';
import type { RateLimits } from './entry-points/http/rate-limits';
import type { SessionCookie } from './entry-points/http/session-cookie';

/** Bytes a stream may have waiting for a slow client; past it the stream is dropped. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** Live events a reconnecting stream may hold while it reads the log; past it it is dropped. */
const MAX_PENDING_EVENTS = 10_000;

/**
 * The console's live updates: the live event log and its writer, this replica's share of the
 * feed, the open streams with their heartbeat and session checks, and the stream's route.
 */
export async function startLiveEvents(deps: {
  config: GatewayConfig;
  db: Connection;
  broker: Broker;
  logger: Logger;
  /** The trim runs on one replica at a time; each replica checks its own streams' sessions. */
  leases: Leases;
}) {
  const { config, broker } = deps;
  const logger = deps.logger.child({ component: 'live-events' });
  const log = createLiveEventLog(deps.db);
  await log.init();
  const streams = createLiveStreams({
    perUser: config.LIVE_STREAMS_PER_USER,
    perOrganization: config.LIVE_STREAMS_PER_ORGANIZATION,
  });
  const feed = followLiveFeed({ broker, streams, logger });
  let writer: { drain(): Promise<void> } | undefined;
  const jobs: { stop(): Promise<void> }[] = [];

  return {
    routes(
      router: Router,
      auth: { sessions: Sessions; cookie: SessionCookie; limits: RateLimits },
    ) {
      liveEventsRoute(router, {
        ...auth,
        streams,
        catchUp: createLiveCatchUp(log),
        options: { maxBufferedBytes: MAX_BUFFERED_BYTES, maxPendingEvents: MAX_PENDING_EVENTS },
        isFollowing: feed.isFollowing,
        logger,
      });
    },

    /** After the broker is connected: the writer, the trim, and the streams' upkeep. */
    async start(sessions: Sessions): Promise<void> {
      writer = await consumeLiveEvents({ broker, writer: createLiveEventWriter(log) });
      jobs.push(
        startPeriodicJob({
          name: 'live-event-trim',
          everyMs: Math.min(60_000, Math.ceil(config.LIVE_EVENT_RETENTION_MS / 2)),
          logger,
          leases: deps.leases,
          run: () =>
            log.trim(
              new Date(Date.now() - config.LIVE_EVENT_RETENTION_MS),
              config.LIVE_EVENT_LOG_MAX,
            ),
        }),
        startPeriodicJob({
          name: 'live-stream-sessions',
          everyMs: config.LIVE_SESSION_CHECK_MS,
          logger,
          run: async () => {
            const hashes = streams.sessionHashes();
            if (hashes.length === 0) return;
            streams.endEnded(hashes, await sessions.stillSignedIn(hashes), 'session ended');
          },
        }),
      );
      const heartbeat = setInterval(() => streams.heartbeat(), config.LIVE_HEARTBEAT_MS);
      jobs.push({ stop: async () => clearInterval(heartbeat) });
    },

    /** Before HTTP closes: every stream ends, so that clients reconnect to another replica. */
    endStreams(): void {
      streams.endAll('gateway stopping');
    },

    async stop(): Promise<void> {
      await Promise.all(jobs.map((job) => job.stop()));
      await writer?.drain();
      await feed.stop();
    },
  };
}
