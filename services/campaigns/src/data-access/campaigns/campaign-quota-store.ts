import { createQuotaCounter, type QuotaCounter } from '@switchboard/service-kit';
import type { Connection } from 'mongoose';

/**
 * Campaigns started per organization and calendar month (UTC), `_id` `<company>:<month>`: each
 * start attempt reserves its campaign under its own name, so asked twice it takes one place and
 * given back twice it returns one.
 */
export function createCampaignQuota(db: Connection): QuotaCounter {
  return createQuotaCounter(db, { collection: 'campaign_quotas', period: 'month', field: 'count' });
}
