import { startServiceRuntime, type RunningService } from '@switchboard/service-kit';
import type { GatewayConfig } from './config';
import { createOrganizationStore } from './data-access/organization-store';
import { createTokenAuthenticator } from './domain/authenticate-token';
import { adminRoutes } from './entry-points/http/admin-routes';
import { apiRoutes } from './entry-points/http/api-routes';
import { methodGuard } from './entry-points/http/method-guard';
import { internalRoutes } from './entry-points/http/internal-routes';
import { messagingChannels } from './outbound/messaging-channels';
import { createServiceProxy } from './outbound/service-proxy';

/** The only process customers reach: authenticates tokens and proxies each operation to its owner. */
export function startService(config: GatewayConfig): Promise<RunningService<GatewayConfig>> {
  return startServiceRuntime({
    service: 'gateway',
    config,
    useBroker: false,
    publicFacing: true,
    async setup({ db, logger }) {
      const store = createOrganizationStore(db);
      await store.init();
      const authenticator = createTokenAuthenticator(store, config.TOKEN_CACHE_TTL_MS);
      const proxy = createServiceProxy({
        urls: {
          messaging: config.MESSAGING_URL,
          contacts: config.CONTACTS_URL,
          campaigns: config.CAMPAIGNS_URL,
          webhooks: config.WEBHOOKS_URL,
          inbound: config.INBOUND_URL,
        },
        internalSecret: config.INTERNAL_API_SECRET,
        timeoutMs: config.PROXY_TIMEOUT_MS,
        logger,
      });
      return {
        // The provider signs the raw bytes; they must reach inbound untouched and unauthenticated.
        rawRoutes: (app) => {
          app.all('/webhook/svc/receive/:token', (req, res) => proxy.forward('inbound', req, res));
        },
        routes: (router) => {
          router.use(methodGuard());
          adminRoutes(router, {
            adminToken: config.ADMIN_API_TOKEN,
            store,
            authenticator,
            channels: messagingChannels(proxy),
          });
          internalRoutes(router, { store, internalSecret: config.INTERNAL_API_SECRET });
          apiRoutes(router, { authenticator, proxy });
        },
        onStop: async () => proxy.shutdown(),
      };
    },
  });
}
