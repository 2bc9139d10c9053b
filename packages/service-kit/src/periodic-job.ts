import type { Logger } from './logger';

export interface PeriodicJobOptions {
  /** Names the job in log lines. */
  name: string;
  everyMs: number;
  /** Delay before the first run (defaults to `everyMs`): lets a starting replica settle first. */
  firstAfterMs?: number;
  logger: Logger;
  run: () => Promise<void>;
}

export interface PeriodicJob {
  /** Runs the job now, unless a run is already going (then waits for that one). */
  runNow(): Promise<void>;
  /** No new runs; resolves once a run in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Background work on a timer (retention, sweeps, reconciliation): one run at a time, a failed run
 * is logged and the next one tries again, and stopping waits for the run in progress so that a
 * graceful shutdown does not cut it off between two writes.
 */
export function startPeriodicJob(options: PeriodicJobOptions): PeriodicJob {
  let running: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  function runNow(): Promise<void> {
    running ??= options
      .run()
      .catch((error: unknown) =>
        options.logger.warn({ err: error, job: options.name }, 'job failed'),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void runNow().then(() => schedule(options.everyMs));
    }, delayMs);
    timer.unref();
  }

  schedule(options.firstAfterMs ?? options.everyMs);
  return {
    runNow,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
