import type { Logger } from '@switchboard/service-kit';
import type { DeliveryStore } from '../data-access/delivery-store';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/**
 * Delivery logs are kept `days` days. The document database has no TTL indexes, so a periodic
 * job removes them; deliveries (which hold the payload the logs show) stay a day longer.
 */
export function startRetentionCleanup(
  deliveries: Pick<DeliveryStore, 'deleteOld'>,
  options: { days: number; logger: Logger; everyMs?: number },
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const clean = () => {
    const now = Date.now();
    running = deliveries
      .deleteOld(new Date(now - options.days * DAY_MS), new Date(now - (options.days + 1) * DAY_MS))
      .then((removed) => {
        if (removed > 0) options.logger.info({ removed }, 'old delivery logs removed');
      })
      .catch((error: unknown) => options.logger.warn({ err: error }, 'retention cleanup failed'));
  };
  const first = setTimeout(clean, 60_000);
  const timer = setInterval(clean, options.everyMs ?? HOUR_MS);
  first.unref();
  timer.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
