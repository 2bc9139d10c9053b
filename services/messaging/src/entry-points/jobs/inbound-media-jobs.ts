import { startPeriodicJob, type PeriodicJob } from '@switchboard/service-kit';
import {
  expireInboundMedia,
  type MediaRetentionDeps,
} from '../../domain/media/expire-inbound-media';
import { fetchDueMedia, type MediaFetchDeps } from '../../domain/media/fetch-inbound-media';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface InboundMediaFetcher {
  /** A file was queued: fetch now (or right after the run in progress). */
  kick(): void;
  stop(): Promise<void>;
}

/**
 * The fetch queue's worker: runs when a file is queued and every `everyMs` (files due for a retry,
 * files a dead process left), away from receipt, so a slow download never holds a message up.
 */
export function startInboundMediaFetcher(
  deps: MediaFetchDeps,
  everyMs: number,
): InboundMediaFetcher {
  let again = false;
  let running = false;
  let stopped = false;
  const job: PeriodicJob = startPeriodicJob({
    name: 'inbound-media-fetch',
    everyMs,
    logger: deps.logger,
    run: async () => {
      running = true;
      try {
        do {
          again = false;
          if (await fetchDueMedia(deps)) again = true;
        } while (again && !stopped);
      } finally {
        running = false;
      }
    },
  });
  return {
    kick() {
      if (stopped) return;
      if (running) again = true;
      else void job.runNow();
    },
    stop: () => {
      stopped = true;
      again = false;
      return job.stop();
    },
  };
}

/** Every `everyMs`: files kept longer than the retention are deleted. */
export function startInboundMediaRetentionJob(
  deps: MediaRetentionDeps,
  retentionDays: number,
  everyMs: number,
): PeriodicJob {
  return startPeriodicJob({
    name: 'inbound-media-retention',
    everyMs,
    logger: deps.logger,
    run: async () => {
      await expireInboundMedia(deps, retentionDays * DAY_MS);
    },
  });
}
