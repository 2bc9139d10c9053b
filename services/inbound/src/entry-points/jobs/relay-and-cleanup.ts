import {
  startPeriodicJob,
  type Broker,
  type Leases,
  type Logger,
  type PeriodicJob,
} from '@switchboard/service-kit';
import type { InboundEventStore } from '../../data-access/inbound-event-store';
import { publishEvents } from '../../domain/publish-event';

const BATCH = 100;
const CLEANUP_EVERY_MS = 60 * 60 * 1000;

/**
 * The outbox relay: publishes accepted events whose publication was never confirmed (broker
 * down, process killed after the write), and deletes raw events past retention.
 */
export function startRelay(deps: {
  broker: Broker;
  store: InboundEventStore;
  logger: Logger;
  intervalMs: number;
  graceMs: number;
  retentionDays: number;
  leases?: Leases;
}): PeriodicJob {
  let lastCleanup = 0;

  const tick = async () => {
    const now = new Date();
    if (deps.broker.isConnected()) {
      const due = await deps.store.findUnpublished(new Date(now.getTime() - deps.graceMs), BATCH);
      if (due.length > 0) {
        const { published, failed } = await publishEvents(deps.broker, deps.store, due);
        if (published > 0) deps.logger.info({ published }, 'relayed unpublished inbound events');
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

  return startPeriodicJob({
    name: 'inbound-relay',
    everyMs: deps.intervalMs,
    logger: deps.logger,
    leases: deps.leases,
    run: tick,
  });
}
