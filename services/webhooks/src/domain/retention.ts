import {
  startPeriodicJob,
  type Leases,
  type Logger,
  type PeriodicJob,
} from '@switchboard/service-kit';
import type { DeliveryStore } from '../data-access/delivery-store';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/**
 * Delivery logs are kept `days` days. The document database has no TTL indexes, so a periodic
 * job removes them; deliveries (which hold the payload the logs show) stay a day longer.
 */
export function startRetentionCleanup(
  deliveries: Pick<DeliveryStore, 'deleteOld'>,
  options: { days: number; logger: Logger; everyMs?: number; leases?: Leases },
): PeriodicJob {
  return startPeriodicJob({
    name: 'delivery-log-retention',
    everyMs: options.everyMs ?? HOUR_MS,
    firstAfterMs: 60_000,
    logger: options.logger,
    leases: options.leases,
    async run() {
      const now = Date.now();
      const removed = await deliveries.deleteOld(
        new Date(now - options.days * DAY_MS),
        new Date(now - (options.days + 1) * DAY_MS),
      );
      if (removed > 0) options.logger.info({ removed }, 'old delivery logs removed');
    },
  });
}
