import type { Router } from 'express';
import type { Connection } from 'mongoose';
import { startPeriodicJob, type Broker, type Logger } from '@switchboard/service-kit';
import type { GatewayConfig } from './config';
import { createLiveEventIds } from './data-access/live-event-ids';
import { createHeldFeed } from './domain/held-feed';
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
 * The console's live updates: the feed's writer (ids and fan-out), this replica's share of the
 * feed and the batches it holds for reconnects, the open streams with their heartbeat and
 * session checks, and the stream's route.
 */
export async function startLiveEvents(deps: {
  config: GatewayConfig;
  db: Connection;
  broker: Broker;
  logger: Logger;
}) {
  const { config, broker } = deps;
  const logger = deps.logger.child({ component: 'live-events' });
  const ids = createLiveEventIds(deps.db);
  await ids.init();
  const streams = createLiveStreams({
    perUser: config.LIVE_STREAMS_PER_USER,
    perOrganization: config.LIVE_STREAMS_PER_ORGANIZATION,
  });
  const held = createHeldFeed({
    retentionMs: config.LIVE_EVENT_RETENTION_MS,
    maxEvents: config.LIVE_EVENT_LOG_MAX,
  });
  const feed = followLiveFeed({ broker, streams, held, logger });
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
        catchUp: createLiveCatchUp(held),
        options: { maxBufferedBytes: MAX_BUFFERED_BYTES, maxPendingEvents: MAX_PENDING_EVENTS },
        isFollowing: feed.isFollowing,
        logger,
      });
    },

    /** After the broker is connected: the writer and the streams' upkeep. */
    async start(sessions: Sessions): Promise<void> {
      writer = await consumeLiveEvents({
        broker,
        writer: createLiveEventWriter({ ids, seenUpTo: () => held.tail }),
      });
      jobs.push(
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
