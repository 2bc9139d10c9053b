import {
  EXCHANGES,
  LiveEventsQueueMessageSchema,
  LiveFeedBatchSchema,
  QUEUES,
  brokerEventsOf,
  type LiveEvent,
  type LiveEventsQueueMessage,
  type LiveFeedBatch,
} from '@switchboard/contracts';
import { createBatcher, handleAll, type Broker, type Logger } from '@switchboard/service-kit';
import type { HeldFeed } from '../../domain/held-feed';
import type { LiveStreams } from '../../domain/live-streams';
import type { LiveEventWriter } from '../../domain/write-live-events';

type Channel = Parameters<Parameters<Broker['onConnect']>[0]>[0];

/** Events gathered into one batch of the feed at most; more wait for the next. */
const WRITE_BATCH = 200;
/**
 * How long the first event of a batch waits for others. Each batch costs a broker message to
 * every replica whatever its size, and every message sent brings four events, a few
 * milliseconds apart; a console shows them no later to the eye.
 */
const WRITE_GATHER_MS = 50;
/** The feed's message id: `live-<first id>-<last id>` of the batch's entries. */
const BATCH_ID = /^live-(\d+)-(\d+)$/;

/**
 * `gateway.live-events`: every event the console shows, given ids in batches and fanned out (a
 * batch message's events each as a lone one, in order; the message acked once all are written).
 * The queue has a single active consumer across the replicas, so ids follow the order events
 * arrived; a standby replica takes over when the active one goes.
 */
export async function consumeLiveEvents(deps: {
  broker: Broker;
  writer: LiveEventWriter;
}): Promise<{ drain(): Promise<void> }> {
  const { broker, writer } = deps;
  const fanOut = (batch: LiveFeedBatch) =>
    broker.publish(EXCHANGES.liveFeed, '', batch, {
      messageId: `live-${batch.entries[0]?.seq ?? 0}-${batch.entries.at(-1)?.seq ?? 0}`,
    });
  const batcher = createBatcher<LiveEvent, undefined>({
    maxItems: WRITE_BATCH,
    maxWaitMs: WRITE_GATHER_MS,
    run: async (events) => {
      await writer.write(events, fanOut);
      return events.map(() => undefined);
    },
  });
  await broker.consume<LiveEventsQueueMessage>(
    QUEUES.gatewayLiveEvents,
    (message) => handleAll(brokerEventsOf<LiveEvent>(message).map((event) => batcher.add(event))),
    { schema: LiveEventsQueueMessageSchema, prefetch: WRITE_BATCH * 2 },
  );
  return { drain: () => batcher.drain() };
}

/**
 * This replica's share of the feed: a queue of its own (exclusive, gone with its connection)
 * bound to `gateway.live-feed`, whose batches are held (for reconnects) and go to the streams
 * open here. A lost connection may have lost batches, so every stream is ended and the held
 * batches forgotten then: clients reconnect with their last id, and reload if it is not held.
 */
export function followLiveFeed(deps: {
  broker: Broker;
  streams: LiveStreams;
  held: HeldFeed;
  logger: Logger;
}) {
  const { broker, streams, held, logger } = deps;
  const lost = (reason: string) => {
    held.forget();
    streams.endAll(reason);
  };
  let channel: Channel | undefined;

  broker.onConnect(async (_setup, connection) => {
    const opened = await connection.createChannel();
    opened.on('error', (error: Error) => logger.warn({ err: error }, 'live feed channel error'));
    opened.on('close', () => {
      if (channel !== opened) return;
      channel = undefined;
      lost('live feed lost');
    });
    const { queue } = await opened.assertQueue('', {
      exclusive: true,
      autoDelete: true,
      durable: false,
    });
    await opened.bindQueue(queue, EXCHANGES.liveFeed, '');
    await opened.consume(
      queue,
      (message) => {
        if (!message) return;
        const ids = BATCH_ID.exec(String(message.properties.messageId));
        if (ids) {
          // Copied: the message's bytes may be a view of a larger frame buffer.
          held.add(Buffer.from(message.content), Number(ids[1]), Number(ids[2]));
        }
        // With no stream open here a batch would be delivered to nobody: not even parsed.
        if (streams.empty) return;
        let json: unknown;
        try {
          json = JSON.parse(message.content.toString('utf8'));
        } catch {
          json = undefined;
        }
        const parsed = LiveFeedBatchSchema.safeParse(json);
        if (parsed.success) streams.deliver(parsed.data);
        else logger.warn({ issues: parsed.error.issues }, 'live feed batch refused');
      },
      { noAck: true },
    );
    channel = opened;
  });
  broker.on('disconnected', () => lost('broker connection lost'));

  return {
    isFollowing: () => channel !== undefined && broker.isConnected(),
    async stop(): Promise<void> {
      const open = channel;
      channel = undefined;
      await open?.close().catch(() => undefined);
    },
  };
}
