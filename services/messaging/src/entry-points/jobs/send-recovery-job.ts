import { startPeriodicJob, type PeriodicJob } from '@switchboard/service-kit';
import {
  recoverInterruptedSends,
  type RecoveryDeps,
} from '../../domain/sending/recover-interrupted-sends';

/** Every `everyMs`: sends and quota places a dead process left are resolved. */
export function startSendRecoveryJob(deps: RecoveryDeps, everyMs: number): PeriodicJob {
  return startPeriodicJob({
    name: 'send-recovery',
    everyMs,
    logger: deps.logger,
    run: () => recoverInterruptedSends(deps),
  });
}
