import { Counter } from 'prom-client';
import type { Leases } from './leases';
import type { Logger } from './logger';
import { currentServiceMetrics } from './metrics';

export interface PeriodicJobOptions {
  /** Names the job in log lines. */
  name: string;
  everyMs: number;
  /** Delay before the first run (defaults to `everyMs`): lets a starting replica settle first. */
  firstAfterMs?: number;
  logger: Logger;
  run: () => Promise<void>;
  /**
   * With several replicas: the job runs only on the replica holding the lease named after it
   * (see leases.ts). Without, every process runs it (a job whose runs are harmless to repeat).
   */
  leases?: Leases;
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
  const countRun = jobRunCounter(options.name);

  async function runIfHeld(): Promise<void> {
    if (options.leases && !(await options.leases.hold(options.name))) return;
    countRun();
    await options.run();
  }

  function runNow(): Promise<void> {
    running ??= runIfHeld()
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

const JOB_RUNS = 'switchboard_periodic_job_runs_total';

/**
 * Counts the runs of a leased or periodic piece of work in the metrics of the service it runs
 * under: across replicas, a job's runs come from the lease holder alone.
 */
export function jobRunCounter(job: string): () => void {
  const registry = currentServiceMetrics()?.registry;
  if (!registry) return () => undefined;
  const counter =
    (registry.getSingleMetric(JOB_RUNS) as Counter<'job'> | undefined) ??
    new Counter({
      name: JOB_RUNS,
      help: 'Runs of periodic work by job (with several replicas, only on the lease holder)',
      labelNames: ['job'] as const,
      registers: [registry],
    });
  return () => counter.inc({ job });
}
