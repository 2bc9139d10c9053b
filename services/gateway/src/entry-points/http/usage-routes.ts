import type { RequestHandler, Router } from 'express';
import { serveOperation } from '@switchboard/service-kit';
import { planUsage } from '../../domain/plan-usage';
import { authenticatedOrganization } from './authenticate';

/** getUsage: the plan's quotas with what is used of each, answered by the gateway itself. */
export function usageRoutes(
  router: Router,
  deps: { authenticate: RequestHandler; usage: Parameters<typeof planUsage>[0] },
): void {
  serveOperation(router, 'getUsage', deps.authenticate, async (_req, res) => {
    res.json(await planUsage(deps.usage, authenticatedOrganization(res)));
  });
}
