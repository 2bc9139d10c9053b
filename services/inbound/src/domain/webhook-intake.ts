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
 * The provider's webhooks, stored in batches: each request is answered once its batch is stored
 * (one insert for the batch), then the batch's broker messages are published side by side and
 * the events marked published together. A publish that fails leaves its event to the relay.
 */
export function createWebhookIntake(deps: {
  store: InboundEventStore;
  broker: Broker;
  logger: Logger;
}) {
  const publishing = new Set<Promise<void>>();

  function publishInBackground(events: InboundEvent[]): void {
    if (events.length === 0) return;
    const work = publishEvents(deps.broker, deps.store, events)
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
    },
  };
}

export type WebhookIntake = ReturnType<typeof createWebhookIntake>;
