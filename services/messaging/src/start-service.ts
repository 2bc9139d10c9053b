import {
  apiPathsOwnedBy,
  notImplementedRoutes,
  startServiceRuntime,
  type RunningService,
} from '@switchboard/service-kit';
import type { MessagingConfig } from './config';
import { createChannelStore } from './data-access/channel-store';
import { channelRoutes } from './entry-points/http/channel-routes';
import { simulatorRegistrar } from './outbound/simulator-control';

export function startService(config: MessagingConfig): Promise<RunningService<MessagingConfig>> {
  return startServiceRuntime({
    service: 'messaging',
    config,
    async setup({ db, logger }) {
      const channels = createChannelStore(db);
      await channels.init();
      const register = config.PROVIDER_SIMULATOR_URL
        ? simulatorRegistrar(config.PROVIDER_SIMULATOR_URL, logger)
        : undefined;
      const defaults = {
        publicBaseUrl: config.PUBLIC_BASE_URL,
        providerBaseUrl: config.PROVIDER_BASE_URL,
        apiVersion: config.PROVIDER_API_VERSION,
      };
      return {
        routes: (router) => {
          channelRoutes(router, { store: channels, defaults, register });
          notImplementedRoutes(router, apiPathsOwnedBy('messaging'));
        },
      };
    },
  });
}
