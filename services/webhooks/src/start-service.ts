import {
  notImplementedRoutes,
  startServiceRuntime,
  type RunningService,
} from '@switchboard/service-kit';
import type { WebhooksConfig } from './config';

export function startService(config: WebhooksConfig): Promise<RunningService<WebhooksConfig>> {
  return startServiceRuntime({
    service: 'webhooks',
    config,
    setup: () => ({
      routes: (router) =>
        notImplementedRoutes(router, ['/developer/webhooks', '/developer/webhooks/*rest']),
    }),
  });
}
