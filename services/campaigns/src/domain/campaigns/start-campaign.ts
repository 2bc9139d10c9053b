import { limitFor, monthKey, quotaExceededMessage, type BrokerEvent } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import { randomUUID } from 'node:crypto';
import type { StoredCampaign } from '../../data-access/campaigns/campaign-store';
import type { CampaignsDeps } from './dependencies';

const orgOf = (campaign: StoredCampaign) => ({
  company_id: campaign.company_id,
  plan: campaign.plan,
  plan_started_at: new Date(campaign.plan_started_at),
});

export function campaignStarted(campaign: StoredCampaign, total: number, now: Date): BrokerEvent {
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
 * Starts a regular campaign all or nothing: the audience is counted, one
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
  const month = monthKey(now);
  const attempt = startAttempt(id, now);
  try {
    const total = await deps.clients.audienceCount(campaign.company_id, campaign.audience);
    if (total === 0) {
      throw new AppError('validation_failed', 'audience: has no subscribed contacts');
    }
    const limit = limitFor(
      organization.plan,
      'campaignsPerMonth',
      organization.plan_started_at,
      now,
    );
    const at = { owner: campaign.company_id, month };
    if (!(await deps.quotas.reserve(at, limit, attempt))) {
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
    await deps.campaigns.update(id, { start_step: 'claimed' }, { start_step: 'campaign_quota' });
    const messagesMonth = await deps.clients.reserveMessages(organization, total, attempt);
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
    deps.progressChanged(id, {
      ...campaign,
      status: 'started',
      start_step: 'none',
      started_at: now,
      total_contacts: total,
    });
  } catch (error) {
    await giveBackStart(deps, campaign.company_id, attempt, month);
    await deps.campaigns.resetStart(id);
    throw error;
  }
  deps.relay.relaySoon(deps.campaigns.outbox, String(id));
  deps.dispatchSoon(id);
  return (await deps.campaigns.findById(id))!;
}

/**
 * One attempt to start a campaign, named by the campaign and the time it was claimed: what it
 * reserves carries this name, so it can be given back without knowing whether the reservation's
 * answer was ever recorded, and a later attempt's reservations are never taken for it.
 */
const startAttempt = (campaign_id: number, claimedAt: Date) =>
  `campaign:${campaign_id}:${claimedAt.getTime()}`;

/** What a start attempt may hold — its campaign of the month, its messages — given back once. */
async function giveBackStart(
  deps: CampaignsDeps,
  company_id: number,
  attempt: string,
  month: string,
): Promise<void> {
  // Messaging reserves in its own month, moments after the claim: across a month's end that is
  // the next one (giving back where nothing is held gives back nothing).
  for (const messagesMonth of new Set([month, monthKey()])) {
    await deps.clients.releaseReservation(company_id, messagesMonth, attempt);
  }
  await deps.quotas.release({ owner: company_id, month }, attempt);
}

/**
 * Starts left half-way by a process that died: what the attempt may hold is given back and the
 * campaign returns to draft or scheduled (the scheduler tries a due one again). The attempt is
 * first marked `undoing` and keeps its name until both give-backs are done, so a recovery that
 * dies half-way leaves it for the next run, which gives back again (once, by name).
 */
export async function recoverAbandonedStarts(deps: CampaignsDeps, olderThan: Date): Promise<void> {
  for (const campaign of await deps.campaigns.abandonedStarts(olderThan, 50)) {
    const held = { start_step: campaign.start_step, start_claimed_at: campaign.start_claimed_at };
    const undoing =
      campaign.start_step === 'undoing' ||
      (await deps.campaigns.update(campaign.id, held, { start_step: 'undoing' }));
    if (!undoing) continue;
    // By the attempt's name, whatever its step says: a reservation the dead process made but
    // never recorded is given back too, and one never made gives back nothing.
    const claimedAt = new Date(campaign.start_claimed_at ?? campaign.updated_at);
    const attempt = startAttempt(campaign.id, claimedAt);
    await giveBackStart(deps, campaign.company_id, attempt, monthKey(claimedAt));
    await deps.campaigns.update(
      campaign.id,
      { start_step: 'undoing', start_claimed_at: campaign.start_claimed_at },
      { start_step: 'none', start_claimed_at: null, total_contacts: 0, quota_month: null },
    );
    deps.logger.warn(
      { campaign_id: campaign.id, step: campaign.start_step },
      'an interrupted campaign start was undone',
    );
  }
}
