import {
  MAX_CAMPAIGNS_PER_PAGE,
  asksForPage,
  pageMeta,
  pageRequest,
  wholeListMeta,
  type CampaignType,
  type CampaignView,
  type CreateCampaignRequest,
  type OrgContext,
  type PageMeta,
  type PagingInput,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { StoredCampaign } from '../../data-access/campaigns/campaign-store';
import type { CampaignsDeps } from './dependencies';
import { startCampaign } from './start-campaign';

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

export function presentCampaign(campaign: StoredCampaign): CampaignView {
  return {
    id: campaign.id,
    name: campaign.name,
    type: campaign.type,
    status: campaign.status,
    message: campaign.message,
    variables: campaign.variables,
    audience: campaign.audience,
    keywords: campaign.keywords,
    scheduled_at: iso(campaign.scheduled_at),
    total_contacts: campaign.total_contacts,
    sent: campaign.sent,
    delivered: campaign.delivered,
    read: campaign.read,
    failed: campaign.failed,
    created_at: new Date(campaign.created_at).toISOString(),
    started_at: iso(campaign.started_at),
    completed_at: iso(campaign.completed_at),
  };
}

export const campaignNotFound = (id: number) => new AppError('not_found', `id: no campaign ${id}`);

export async function findCampaign(
  deps: CampaignsDeps,
  company_id: number,
  id: number,
): Promise<StoredCampaign> {
  const campaign = await deps.campaigns.find(company_id, id);
  if (!campaign) throw campaignNotFound(id);
  return campaign;
}

/** createCampaign: stored as draft or scheduled; `send_now` starts it before answering. */
export async function createCampaign(
  deps: CampaignsDeps,
  organization: OrgContext,
  request: CreateCampaignRequest,
  now = new Date(),
): Promise<StoredCampaign> {
  const scheduledAt = request.scheduled_at ? new Date(request.scheduled_at) : null;
  const campaign: Omit<StoredCampaign, 'pending_events' | 'pending_ids'> = {
    _id: '',
    id: await deps.nextCampaignId(),
    company_id: organization.company_id,
    plan: organization.plan,
    plan_started_at: organization.plan_started_at,
    name: request.name,
    type: request.type,
    status: scheduledAt ? 'scheduled' : 'draft',
    message: request.message,
    variables: request.variables,
    audience: request.audience ?? null,
    keywords: request.keywords ?? null,
    scheduled_at: scheduledAt,
    start_step: 'none',
    start_claimed_at: null,
    quota_month: null,
    total_contacts: 0,
    sent: 0,
    delivered: 0,
    read: 0,
    failed: 0,
    settled: 0,
    cursor: 0,
    dispatched: 0,
    dispatch_done: false,
    created_at: now,
    started_at: null,
    completed_at: null,
    updated_at: now,
  };
  campaign._id = String(campaign.id);
  await deps.campaigns.insert(campaign);
  if (!request.send_now) return { ...campaign, pending_events: {}, pending_ids: [] };
  try {
    return await startCampaign(deps, campaign.id, now);
  } catch (error) {
    // Nothing was sent and nothing is held: the caller's request has no effect at all.
    await deps.campaigns.delete(campaign.id);
    throw error;
  }
}

/** Every campaign (oldest first), or one page of them when the caller asks for a page. */
export async function listCampaigns(
  deps: CampaignsDeps,
  company_id: number,
  query: { type?: CampaignType } & PagingInput,
): Promise<{ campaigns: StoredCampaign[]; meta: PageMeta }> {
  if (!asksForPage(query)) {
    const campaigns = await deps.campaigns.list(company_id, query.type);
    return { campaigns, meta: wholeListMeta(campaigns.length) };
  }
  const request = pageRequest(query, MAX_CAMPAIGNS_PER_PAGE);
  const [campaigns, total] = await Promise.all([
    deps.campaigns.list(company_id, query.type, request),
    deps.campaigns.count(company_id, query.type),
  ]);
  return { campaigns, meta: pageMeta(total, request) };
}

/**
 * cancelCampaign: a draft or scheduled campaign never starts; a started one stops handing
 * messages to messaging (those already handed over are sent), and its held quota for the rest
 * is given back by the dispatcher when it sees the cancel.
 */
export async function cancelCampaign(
  deps: CampaignsDeps,
  company_id: number,
  id: number,
): Promise<StoredCampaign> {
  const campaign = await findCampaign(deps, company_id, id);
  if (!['draft', 'scheduled', 'started'].includes(campaign.status)) {
    throw new AppError('conflict', `id: campaign ${id} is ${campaign.status}`);
  }
  const canceled = await deps.campaigns.update(
    id,
    { status: campaign.status, start_step: 'none' },
    { status: 'canceled', completed_at: new Date() },
  );
  if (!canceled) throw new AppError('conflict', `id: campaign ${id} changed; try again`);
  deps.progressChanged(id);
  if (campaign.status === 'started') deps.dispatchSoon(id);
  return findCampaign(deps, company_id, id);
}

/** deleteCampaign: drafts and finished campaigns only (a running one is canceled first). */
export async function deleteCampaign(
  deps: CampaignsDeps,
  company_id: number,
  id: number,
): Promise<void> {
  const campaign = await findCampaign(deps, company_id, id);
  const deletable =
    campaign.type !== 'regular' || ['draft', 'completed', 'canceled'].includes(campaign.status);
  if (
    !deletable ||
    (campaign.status === 'canceled' && !campaign.dispatch_done && campaign.started_at)
  ) {
    throw new AppError(
      'conflict',
      `id: campaign ${id} is ${campaign.status}; cancel it and wait for it to stop first`,
    );
  }
  await deps.campaigns.delete(id);
  await deps.recipients.deleteOfCampaign(id);
}
