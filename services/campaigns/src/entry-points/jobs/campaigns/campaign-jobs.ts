import { startPeriodicJob, type Leases, type PeriodicJob } from '@switchboard/service-kit';
import type { CampaignsDeps } from '../../../domain/campaigns/dependencies';
import { dispatchCampaign, recountProgress } from '../../../domain/campaigns/dispatch-campaign';
import { recoverAbandonedStarts, startCampaign } from '../../../domain/campaigns/start-campaign';

/** A start left half-way longer than this belongs to a process that died. */
const ABANDONED_START_MS = 2 * 60 * 1000;
/** A campaign this long without progress is recounted from its recipients. */
const STALLED_MS = 30 * 1000;
/**
 * A handing-over this long without a page belongs to a process that died (every page moves the
 * campaign on): only then does the scheduler resume it, so that the replica which started a
 * campaign and the replica holding the scheduler never hand the same pages over together.
 */
const DISPATCH_IDLE_MS = 15 * 1000;

/**
 * The dispatcher: one run of a campaign's handing-over at a time in this process, started by a
 * start or a cancel at once, and by the periodic job for whatever a restart left.
 */
export function createDispatcher(deps: Omit<CampaignsDeps, 'dispatchSoon'>) {
  const running = new Map<number, Promise<void>>();
  function dispatchSoon(id: number): void {
    if (running.has(id)) return;
    const run = dispatchCampaign({ ...deps, dispatchSoon }, id)
      .catch((error: unknown) =>
        deps.logger.warn(
          { err: error, campaign_id: id },
          'campaign dispatch paused; resumed later',
        ),
      )
      .finally(() => running.delete(id));
    running.set(id, run);
  }
  return {
    dispatchSoon,
    async idle(): Promise<void> {
      await Promise.all(running.values());
    },
  };
}

/**
 * Every `everyMs`, on the replica holding the scheduler's lease: due scheduled campaigns start
 * (a conditional claim besides, so that a replica that lost the lease mid-run never starts one
 * twice), interrupted starts are undone, abandoned dispatches resume, and stalled progress is
 * recounted.
 */
export function startCampaignJobs(
  deps: CampaignsDeps,
  everyMs: number,
  leases?: Leases,
): PeriodicJob {
  return startPeriodicJob({
    name: 'campaign-scheduler',
    everyMs,
    leases,
    firstAfterMs: Math.min(everyMs, 1_000),
    logger: deps.logger,
    async run() {
      const now = new Date();
      await recoverAbandonedStarts(deps, new Date(now.getTime() - ABANDONED_START_MS));
      for (const campaign of await deps.campaigns.due(now, 20)) {
        await startCampaign(deps, campaign.id, now).catch((error: unknown) =>
          deps.logger.warn(
            { err: error, campaign_id: campaign.id },
            'scheduled campaign did not start',
          ),
        );
      }
      const idleSince = new Date(now.getTime() - DISPATCH_IDLE_MS);
      for (const campaign of await deps.campaigns.undispatched(idleSince, 20)) {
        deps.dispatchSoon(campaign.id);
      }
      for (const campaign of await deps.campaigns.stalled(
        new Date(now.getTime() - STALLED_MS),
        20,
      )) {
        await recountProgress(deps, campaign.id);
      }
    },
  });
}
