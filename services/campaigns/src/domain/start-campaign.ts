import { limitFor, monthKey, quotaExceededMessage, type BrokerEvent } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import { randomUUID } from 'node:crypto';
import type { StoredCampaign } from '../data-access/campaign-store';
import type { CampaignsDeps } from './dependencies';

const orgOf = (campaign: StoredCampaign) => ({
  company_id: campaign.company_id,
  plan: campaign.plan,
  plan_started_at: new Date(campaign.plan_started_at),
});

function campaignStarted(campaign: StoredCampaign, total: number, now: Date): BrokerEvent {
  return {
    id: randomUUID(),
    event: 'campaign_started',
    timestamp: now.toISOString(),
    company_id: campaign.company_id,
    data: {
      id: campaign.id,
      name: campaign.name,
      total_contacts: total,
      created_at: new Date(campaign.created_at).toISOString(),
    },
  };
}

/**
 * Starts a regular campaign all or nothing (issue 7 points 4–5): the audience is counted, one
 * campaign of the month and that many messages are reserved, and only then is it `started` with
 * `campaign_started` in its outbox. If either quota is short nothing is held and the caller gets
 * the quota error. Each step is recorded first, so `recoverAbandonedStarts` can give back what a
 * process that died half-way held.
 */
export async function startCampaign(
  deps: CampaignsDeps,
  id: number,
  now = new Date(),
): Promise<StoredCampaign> {
  const campaign = await deps.campaigns.findById(id);
  if (!campaign) throw new AppError('not_found', `id: no campaign ${id}`);
  if (campaign.type !== 'regular' || !campaign.audience) {
    throw new AppError(
      'conflict',
      `id: only regular campaigns are started; ${id} is ${campaign.type}`,
    );
  }
  const claimed = await deps.campaigns.update(
    id,
    { status: campaign.status, start_step: 'none' },
    { start_step: 'claimed', start_claimed_at: now },
  );
  if (!claimed || !['draft', 'scheduled'].includes(campaign.status)) {
    throw new AppError('conflict', `id: campaign ${id} is ${campaign.status}`);
  }

  const organization = orgOf(campaign);
  let campaignMonth: string | undefined;
  let held: { month: string; count: number } | undefined;
  try {
    const total = await deps.clients.audienceCount(campaign.company_id, campaign.audience);
    if (total === 0) {
      throw new AppError('validation_failed', 'audience: has no subscribed contacts');
    }
    const month = monthKey(now);
    const limit = limitFor(
      organization.plan,
      'campaignsPerMonth',
      organization.plan_started_at,
      now,
    );
    if (!(await deps.quotas.reserve(campaign.company_id, month, limit))) {
      throw new AppError(
        'quota_exceeded',
        quotaExceededMessage(
          organization.plan,
          'campaignsPerMonth',
          organization.plan_started_at,
          now,
        ),
      );
    }
    campaignMonth = month;
    await deps.campaigns.update(id, { start_step: 'claimed' }, { start_step: 'campaign_quota' });
    const messagesMonth = await deps.clients.reserveMessages(organization, total);
    held = { month: messagesMonth, count: total };
    await deps.campaigns.update(
      id,
      { start_step: 'campaign_quota' },
      { start_step: 'message_quota', quota_month: messagesMonth, total_contacts: total },
    );
    const started = await deps.campaigns.update(
      id,
      { start_step: 'message_quota' },
      { status: 'started', start_step: 'none', started_at: now },
      [campaignStarted(campaign, total, now)],
    );
    if (!started) throw new AppError('conflict', `id: campaign ${id} changed while starting`);
  } catch (error) {
    if (held) {
      await deps.clients.releaseMessages(campaign.company_id, held.month, held.count);
    }
    if (campaignMonth) await deps.quotas.release(campaign.company_id, campaignMonth);
    await deps.campaigns.resetStart(id);
    throw error;
  }
  deps.relay.relaySoon(deps.campaigns.outbox, String(id));
  deps.dispatchSoon(id);
  return (await deps.campaigns.findById(id))!;
}

/**
 * Starts left half-way by a process that died: what the recorded step says was held is given
 * back, and the campaign returns to draft or scheduled (the scheduler tries a due one again).
 */
export async function recoverAbandonedStarts(deps: CampaignsDeps, olderThan: Date): Promise<void> {
  for (const campaign of await deps.campaigns.abandonedStarts(olderThan, 50)) {
    const reset = await deps.campaigns.update(
      campaign.id,
      { start_step: campaign.start_step, start_claimed_at: campaign.start_claimed_at },
      { start_step: 'none', start_claimed_at: null, total_contacts: 0, quota_month: null },
    );
    if (!reset) continue;
    const claimedMonth = monthKey(new Date(campaign.start_claimed_at ?? campaign.updated_at));
    if (campaign.start_step === 'campaign_quota' || campaign.start_step === 'message_quota') {
      await deps.quotas.release(campaign.company_id, claimedMonth);
    }
    if (campaign.start_step === 'message_quota' && campaign.quota_month) {
      await deps.clients.releaseMessages(
        campaign.company_id,
        campaign.quota_month,
        campaign.total_contacts,
      );
    }
    deps.logger.warn(
      { campaign_id: campaign.id, step: campaign.start_step },
      'an interrupted campaign start was undone',
    );
  }
}
