import { randomUUID } from 'node:crypto';
import type { CampaignProgressEvent } from '@switchboard/contracts';
import type { Logger } from '@switchboard/service-kit';
import type { StoredCampaign } from '../../data-access/campaigns/campaign-store';

/** At most this often per campaign (and process) a `campaign_progress` goes out. */
export const PROGRESS_NOTICE_EVERY_MS = 250;

export function campaignProgress(
  campaign: StoredCampaign,
  now = new Date(),
): CampaignProgressEvent {
  return {
    id: randomUUID(),
    event: 'campaign_progress',
    timestamp: now.toISOString(),
    company_id: campaign.company_id,
    data: {
      campaign_id: campaign.id,
      status: campaign.status,
      total: campaign.total_contacts,
      sent: campaign.sent,
      delivered: campaign.delivered,
      read: campaign.read,
      failed: campaign.failed,
    },
  };
}

/**
 * The console's view of campaigns moving: a campaign whose counts or status changed is noted,
 * and at most every `everyMs` the campaigns noted meanwhile are read in one query and each
 * published once with its counts as they stand then. A notice is a snapshot, so one lost (the
 * broker away) is made good by the next; none is retried.
 */
export function createProgressNotices(deps: {
  findMany(ids: number[]): Promise<StoredCampaign[]>;
  publish(event: CampaignProgressEvent): Promise<void>;
  logger: Logger;
  everyMs?: number;
}) {
  const everyMs = deps.everyMs ?? PROGRESS_NOTICE_EVERY_MS;
  /** Campaigns to announce: read back at the flush, or as a change left them (`as`). */
  let noted = new Map<number, StoredCampaign | undefined>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let stopped = false;
  /** When the last notices were stamped: the next go out `everyMs` after, at the earliest. */
  let lastStampedAt = Number.NEGATIVE_INFINITY;

  async function flush(): Promise<void> {
    timer = undefined;
    const entries = [...noted];
    noted = new Map();
    if (entries.length === 0) return;
    // A campaign noted as a change left it goes out as that (its start, say), and is read back at
    // the next flush: by now it may have moved on, and that notice comes at its turn.
    const given = entries.flatMap(([, as]) => (as ? [as] : []));
    const toRead = entries.flatMap(([id, as]) => (as ? [] : [id]));
    try {
      const campaigns = [...given, ...(toRead.length > 0 ? await deps.findMany(toRead) : [])];
      const now = new Date();
      lastStampedAt = now.getTime();
      await Promise.all(campaigns.map((campaign) => deps.publish(campaignProgress(campaign, now))));
    } catch (error) {
      deps.logger.warn(
        { err: error, campaigns: entries.length },
        'campaign progress not published',
      );
    }
    for (const as of given) if (!noted.has(as.id)) noted.set(as.id, undefined);
  }

  // The first change after a quiet spell goes out at once (a short campaign's `started` is seen
  // before it completes); later ones wait out the rest of `everyMs`.
  function schedule(): void {
    if (timer || stopped) return;
    const wait = Math.max(0, lastStampedAt + everyMs - Date.now());
    timer = setTimeout(() => {
      flushing = flush().finally(() => {
        flushing = undefined;
        if (noted.size > 0) schedule();
      });
    }, wait);
  }

  return {
    /**
     * The campaign's counts or status moved. `as` is the campaign as this change left it, given
     * for a status the console must see (a start): its notice says that, not what a read a moment
     * later finds, by when a short campaign may have completed.
     */
    changed(campaign_id: number, as?: StoredCampaign): void {
      noted.set(campaign_id, as ?? noted.get(campaign_id));
      if (!flushing) schedule();
    },

    /** Publishes what is noted, then no more. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await flushing;
      await flush();
    },
  };
}

export type ProgressNotices = ReturnType<typeof createProgressNotices>;
