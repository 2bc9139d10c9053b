import type { Router } from 'express';
import {
  InternalUsageParamsSchema,
  InternalUsageQuerySchema,
  monthKey,
  USAGE_INTERNAL_ROUTE,
  type InternalUsageResponse,
} from '@switchboard/contracts';
import { parseInput } from '@switchboard/service-kit';
import { campaignsStarted } from '../../../domain/campaigns/campaign-usage';
import type { CampaignsDeps } from '../../../domain/campaigns/dependencies';

/** Internal: the gateway's getUsage asks how many campaigns started in a month (the current one unless named). */
export function usageRoutes(router: Router, deps: Pick<CampaignsDeps, 'quotas'>): void {
  router.get(USAGE_INTERNAL_ROUTE, async (req, res) => {
    const { company_id } = parseInput(InternalUsageParamsSchema, req.params);
    const { month = monthKey() } = parseInput(InternalUsageQuerySchema, req.query);
    const body: InternalUsageResponse = {
      status: 'success',
      used: await campaignsStarted(deps, company_id, month),
    };
    res.json(body);
  });
}
