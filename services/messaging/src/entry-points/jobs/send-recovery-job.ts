import { startPeriodicJob, type Leases, type PeriodicJob } from '@switchboard/service-kit';
import {
  recoverInterruptedSends,
  type RecoveryDeps,
} from '../../domain/sending/recover-interrupted-sends';

/** Every `everyMs`: sends and quota places a dead process left are resolved. */
export function startSendRecoveryJob(
  deps: RecoveryDeps,
  everyMs: number,
  leases?: Leases,
): PeriodicJob {
  return startPeriodicJob({
    name: 'send-recovery',
    everyMs,
    leases,
    logger: deps.logger,
    run: () => recoverInterruptedSends(deps),
  });
}
