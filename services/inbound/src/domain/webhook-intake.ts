import type { InboundChannel } from '@switchboard/contracts';
import { createBatcher, type Broker, type Logger } from '@switchboard/service-kit';
import type { InboundEvent, InboundEventStore } from '../data-access/inbound-event-store';
import { inboundEventOf } from './accept-webhook';
import { publishEvents } from './publish-event';

/** How long a webhook waits for others to be stored with it when inbound is idle. */
const GATHER_MS = 2;
/** The most webhooks stored in one batch. */
const BATCH = 50;
/**
 * How long a published event waits at most for others to be marked published with it; a fifth
 * of the relay's grace when that is shorter, so that the relay does not take an event whose mark
 * is still waiting.
 */
const MARK_GATHER_MS = 500;
/** The most events marked published in one batch of writes. */
const MARK_BATCH = 500;

/**
 * The provider's webhooks, stored in batches: each request is answered once its batch is stored
 * (one insert for the batch), then the batch's broker messages are published side by side and
 * the events marked published together. A publish that fails leaves its event to the relay.
 */
export function createWebhookIntake(deps: {
  store: InboundEventStore;
  broker: Broker;
  logger: Logger;
  /** How long the relay leaves an event to its own publication (RELAY_GRACE_MS). */
  relayGraceMs: number;
}) {
  const publishing = new Set<Promise<void>>();
  // Marks of many intake batches in one write: at a few webhooks per batch, marking each batch
  // on its own was half of inbound's database commands. An event whose mark is lost (a crash)
  // is published again by the relay, which is harmless.
  const marks = createBatcher<string, void>({
    maxItems: MARK_BATCH,
    maxWaitMs: Math.min(MARK_GATHER_MS, Math.floor(deps.relayGraceMs / 5)),
    async run(ids) {
      await deps.store.markManyPublished(ids, new Date());
      return ids.map(() => undefined);
    },
  });
  const markPublished = async (ids: string[]) => {
    await Promise.all(ids.map((id) => marks.add(id)));
  };

  function publishInBackground(events: InboundEvent[]): void {
    if (events.length === 0) return;
    const work = publishEvents(deps.broker, markPublished, events)
      .then(({ failed }) => {
        if (failed.length > 0) {
          deps.logger.warn({ err: failed[0], events: failed.length }, 'publish deferred to relay');
        }
      })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'publish deferred to relay'))
      .finally(() => publishing.delete(work));
    publishing.add(work);
  }

  const intake = createBatcher<InboundEvent, { event: InboundEvent; duplicate: boolean }>({
    maxItems: BATCH,
    maxWaitMs: GATHER_MS,
    async run(events) {
      const outcomes = await deps.store.insertManyOnce(events);
      // After the answers: the provider waits for nobody. The relay covers a crash before this.
      setImmediate(() =>
        publishInBackground(
          outcomes.flatMap((outcome) =>
            outcome instanceof Error ||
            outcome.duplicate ||
            outcome.event.pending.length === 0 ||
            outcome.event.published_at
              ? []
              : [outcome.event],
          ),
        ),
      );
      return outcomes;
    },
  });

  return {
    /** Stores a verified webhook; a second arrival of the same bytes answers the first one. */
    accept: (channel: InboundChannel, rawBody: Buffer) =>
      intake.add(inboundEventOf(channel, rawBody)),
    /** Waits for the publications under way (at shutdown). */
    async drain(): Promise<void> {
      await Promise.all([...publishing]);
      await marks.drain();
    },
  };
}

export type WebhookIntake = ReturnType<typeof createWebhookIntake>;
