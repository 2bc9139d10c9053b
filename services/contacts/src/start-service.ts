import {
  apiPathsOwnedBy,
  notImplementedRoutes,
  startServiceRuntime,
  type RunningService,
} from '@switchboard/service-kit';
import type { ContactsConfig } from './config';

export function startService(config: ContactsConfig): Promise<RunningService<ContactsConfig>> {
  return startServiceRuntime({
    service: 'contacts',
    config,
    setup: () => ({
      routes: (router) => notImplementedRoutes(router, apiPathsOwnedBy('contacts')),
    }),
  });
}
