import {
  limitFor,
  monthKey,
  type CountedElsewhere,
  type PlanResource,
  type UsageQuota,
  type UsageResponse,
} from '@switchboard/contracts';
import type { Organization } from '../data-access/organization-store';

/** Reads another service's counter; rejects when the service does not answer in time. */
export type CountUsed = (
  quota: CountedElsewhere,
  company_id: number,
  month: string,
) => Promise<number>;

const PLAN_RESOURCES: Record<UsageQuota, PlanResource> = {
  messages: 'messagesPerMonth',
  campaigns: 'campaignsPerMonth',
  contacts: 'contacts',
  agents: 'agents',
};

/**
 * Each quota of the organization's plan with what is used of it. The three counters kept
 * elsewhere are asked for at once; one that fails leaves its `used` null and is named in
 * `unavailable`, so a slow service costs the page one figure, not the whole answer.
 */
export async function planUsage(
  deps: { countUsed: CountUsed; seatsUsed: (company_id: number) => Promise<number> },
  organization: Organization,
  now = new Date(),
): Promise<UsageResponse> {
  const { company_id, plan, plan_started_at } = organization;
  const month = monthKey(now);
  const quotas = Object.keys(PLAN_RESOURCES) as UsageQuota[];
  const counts = await Promise.allSettled(
    quotas.map((quota) =>
      quota === 'agents' ? deps.seatsUsed(company_id) : deps.countUsed(quota, company_id, month),
    ),
  );
  const unavailable: UsageQuota[] = [];
  const usage = Object.fromEntries(
    quotas.map((quota, index) => {
      const count = counts[index]!;
      if (count.status === 'rejected') unavailable.push(quota);
      return [
        quota,
        {
          used: count.status === 'fulfilled' ? count.value : null,
          limit: limitFor(plan, PLAN_RESOURCES[quota], plan_started_at, now),
        },
      ];
    }),
  ) as UsageResponse['usage'];
  return { status: 'success', plan, month, usage, unavailable };
}
