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
 * Batches under way at once. A batch waits mostly for the broker's confirms (tens of
 * milliseconds under load), and the gateway hands over up to 64 webhooks at a time and waits
 * for all of their answers: two batches side by side take such a hand-over in one wait. Their
 * publishes still leave in the order the batches started, so statuses keep theirs.
 */
const CONCURRENCY = 2;
/**
 * How long a batch waits at most for the broker's confirms before it is stored for the relay
 * instead: the provider's answer does not wait long for a broker that is gone or stalled.
 */
const PUBLISH_WAIT_MS = 2_000;

/** How many webhooks the intake remembers having taken (their ids and outcomes). */
const RECENT_MAX = 10_000;

/** What became of a webhook: stored, or the same bytes as one stored before. */
type Accepted = { duplicate: boolean };

/**
 * The provider's webhooks, in batches: each batch's broker messages are published first, side by
 * side, then the batch is stored in one insert, the events the broker confirmed already marked
 * published, and only then is each request answered. So a webhook is written once: the row is
 * never updated after it. When the broker is down, or does not confirm within PUBLISH_WAIT_MS,
 * the events are stored unpublished and the relay publishes them. A crash after the publish and
 * before the store leaves the provider unanswered: it sends the webhook again, which is published
 * again under the same ids (they come from the bytes) and which consumers deduplicate.
 */
export function createWebhookIntake(deps: {
  store: InboundEventStore;
  broker: Broker;
  logger: Logger;
}) {
  async function publishFirst(events: InboundEvent[]): Promise<Set<string>> {
    const due = events.filter((event) => event.pending.length > 0 && !event.published_at);
    if (due.length === 0) return new Set();
    if (!deps.broker.isConnected()) {
      deps.logger.warn({ events: due.length }, 'broker unavailable: publish left to the relay');
      return new Set();
    }
    const { published, failed } = await publishEvents(deps.broker, due, PUBLISH_WAIT_MS);
    if (failed.length > 0) {
      deps.logger.warn(
        { err: failed[0], events: due.length - published.length },
        'publish left to the relay',
      );
    }
    return new Set(published.map((event) => event._id));
  }

  const intake = createBatcher<InboundEvent, { event: InboundEvent; duplicate: boolean }>({
    maxItems: BATCH,
    maxWaitMs: GATHER_MS,
    concurrency: CONCURRENCY,
    async run(events) {
      const published = await publishFirst(events);
      const now = new Date();
      return deps.store.insertManyOnce(
        events.map((event) => (published.has(event._id) ? { ...event, published_at: now } : event)),
      );
    },
  });

  // The webhooks this process took lately, by id, while under way and after (their outcome only,
  // not their bodies): the provider's second delivery of one (the same bytes) waits for the first
  // and is answered as it was, without being published again. Another replica, or this one after
  // a restart, publishes it again under the same ids, which consumers deduplicate.
  const recent = new Map<string, Promise<Accepted>>();
  function accept(channel: InboundChannel, rawBody: Buffer): Promise<Accepted> {
    const event = inboundEventOf(channel, rawBody);
    const first = recent.get(event._id);
    if (first) return first.then(() => ({ duplicate: true }));
    const accepted = intake.add(event).then(({ duplicate }) => ({ duplicate }));
    recent.set(event._id, accepted);
    if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!);
    // A webhook that failed is taken again in full when it comes back.
    accepted.catch(() => {
      if (recent.get(event._id) === accepted) recent.delete(event._id);
    });
    return accepted;
  }

  return {
    /** Publishes and stores a verified webhook; a second arrival of the same bytes answers as the first. */
    accept,
    /** Waits for the batches under way (at shutdown). */
    drain: () => intake.drain(),
  };
}

export type WebhookIntake = ReturnType<typeof createWebhookIntake>;
