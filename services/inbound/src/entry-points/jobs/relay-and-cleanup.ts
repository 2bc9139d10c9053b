import { startPeriodicJob, type Leases, type PeriodicJob } from '@switchboard/service-kit';
import { createRelayAndCleanup, type RelayDeps } from '../../domain/relay-events';

/**
 * The outbox relay, every `intervalMs` under a lease: publishes accepted events whose publication
 * was never confirmed, and deletes raw events past retention.
 */
export function startRelay(deps: RelayDeps & { intervalMs: number; leases?: Leases }): PeriodicJob {
  return startPeriodicJob({
    name: 'inbound-relay',
    everyMs: deps.intervalMs,
    logger: deps.logger,
    leases: deps.leases,
    run: createRelayAndCleanup(deps),
  });
}
