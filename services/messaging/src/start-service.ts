import {
  apiPathsOwnedBy,
  notImplementedRoutes,
  startServiceRuntime,
  type RunningService,
} from '@switchboard/service-kit';
import type { MessagingConfig } from './config';

export function startService(config: MessagingConfig): Promise<RunningService<MessagingConfig>> {
  return startServiceRuntime({
    service: 'messaging',
    config,
    setup: () => ({
      routes: (router) => notImplementedRoutes(router, apiPathsOwnedBy('messaging')),
    }),
  });
}
