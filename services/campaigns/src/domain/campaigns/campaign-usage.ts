import type { CampaignsDeps } from './dependencies';

/** Campaigns an organization started in a calendar month, as its monthly quota counts them. */
export function campaignsStarted(
  deps: Pick<CampaignsDeps, 'quotas'>,
  company_id: number,
  month: string,
): Promise<number> {
  return deps.quotas.usage({ owner: company_id, month });
}
