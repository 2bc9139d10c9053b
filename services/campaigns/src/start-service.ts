import {
  apiPathsOwnedBy,
  notImplementedRoutes,
  startServiceRuntime,
  type RunningService,
} from '@switchboard/service-kit';
import type { CampaignsConfig } from './config';

export function startService(config: CampaignsConfig): Promise<RunningService<CampaignsConfig>> {
  return startServiceRuntime({
    service: 'campaigns',
    config,
    setup: () => ({
      routes: (router) => notImplementedRoutes(router, apiPathsOwnedBy('campaigns')),
    }),
  });
}
