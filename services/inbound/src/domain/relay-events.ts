import type { Broker, Logger } from '@switchboard/service-kit';
import type { InboundEvent, InboundEventStore } from '../data-access/inbound-event-store';
import { publicationsOf } from './accept-webhook';
import { publishEvents } from './publish-event';

const BATCH = 100;
const CLEANUP_EVERY_MS = 60 * 60 * 1000;

export interface RelayDeps {
  broker: Broker;
  store: InboundEventStore;
  logger: Logger;
  /** How long an event stored unpublished waits before the relay takes it (RELAY_GRACE_MS). */
  graceMs: number;
  retentionDays: number;
}

/**
 * An unpublished event with its publications: those it stored (an older event), or its raw body
 * split again, as the intake split it (message ids included, so a message sent twice is known).
 */
export function withPublications(event: InboundEvent): InboundEvent {
  if (event.pending?.length) return event;
  let split: ReturnType<typeof publicationsOf> = [];
  try {
    split = publicationsOf(event._id, JSON.parse(event.raw_body));
  } catch {
    split = [];
  }
  return { ...event, pending: typeof split === 'string' ? [] : split };
}

/**
 * The outbox relay's one pass: publishes accepted events stored unpublished (the broker down or
 * refusing when they arrived, its confirms too slow), and, at most once an hour, deletes raw
 * events past retention.
 */
export function createRelayAndCleanup(deps: RelayDeps): () => Promise<void> {
  let lastCleanup = 0;
  return async () => {
    const now = new Date();
    if (deps.broker.isConnected()) {
      const due = (
        await deps.store.findUnpublished(new Date(now.getTime() - deps.graceMs), BATCH)
      ).map(withPublications);
      if (due.length > 0) {
        const { published, failed } = await publishEvents(deps.broker, due);
        await deps.store.markManyPublished(
          published.map((event) => event._id),
          new Date(),
        );
        if (published.length > 0) {
          deps.logger.info({ published: published.length }, 'relayed unpublished inbound events');
        }
        if (failed.length > 0) throw failed[0];
      }
    }
    if (now.getTime() - lastCleanup > CLEANUP_EVERY_MS) {
      lastCleanup = now.getTime();
      const cutoff = new Date(now.getTime() - deps.retentionDays * 24 * 3600 * 1000);
      const deleted = await deps.store.deleteReceivedBefore(cutoff);
      if (deleted > 0) deps.logger.info({ deleted }, 'deleted inbound events past retention');
    }
  };
}
