import express from 'express';
import {
  metricsRoute,
  startHttpServer,
  startServiceRuntime,
  type RunningService,
} from '@switchboard/service-kit';
import type { GatewayConfig } from './config';
import { createOrganizationStore } from './data-access/organization-store';
import { createTokenAuthenticator } from './domain/authenticate-token';
import { adminRoutes } from './entry-points/http/admin-routes';
import { apiRoutes } from './entry-points/http/api-routes';
import { checkAssignee } from './entry-points/http/check-assignee';
import { consoleRoutes } from './entry-points/http/console-routes';
import { createFastApiPath } from './entry-points/http/fast-api-path';
import { createRateLimits } from './entry-points/http/rate-limits';
import { methodGuard } from './entry-points/http/method-guard';
import { createOrganizations } from './domain/organizations';
import { internalRoutes } from './entry-points/http/internal-routes';
import { usageRoutes } from './entry-points/http/usage-routes';
import { refuseUnplainPaths } from './entry-points/http/refuse-unplain-paths';
import { isForwardablePath, ownerPath, rawPathOf } from './domain/public-paths';
import { messagingChannels } from './outbound/messaging-channels';
import { messagingPhoneNumbers } from './outbound/messaging-phone-numbers';
import { createInboundWebhookBatches } from './outbound/inbound-webhook-batches';
import { createServiceProxy } from './outbound/service-proxy';
import { USAGE_TIMEOUT_MS, usageCounters } from './outbound/usage-counters';
import { startLiveEvents } from './start-live-events';
import { startUsers } from './start-users';

/** The only process customers reach: authenticates tokens and proxies each operation to its owner. */
export function startService(config: GatewayConfig): Promise<RunningService<GatewayConfig>> {
  return startServiceRuntime({
    service: 'gateway',
    config,
    publicFacing: true,
    async setup({ db, broker, logger, metrics, leases }) {
      const store = createOrganizationStore(db);
      await store.init();
      const authenticator = createTokenAuthenticator(store, config.TOKEN_CACHE_TTL_MS);
      const organizations = createOrganizations({ store, authenticator });
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
        isForwardable: isForwardablePath,
      });
      const limits = createRateLimits({
        replicas: config.GATEWAY_REPLICAS,
        apiRateScale: config.API_RATE_SCALE,
        admin: {
          perSecond: config.ADMIN_RATE_PER_SECOND,
          burst: config.ADMIN_RATE_PER_SECOND * 10,
        },
        failedAuth: {
          perSecond: config.FAILED_AUTH_PER_MINUTE / 60,
          burst: config.FAILED_AUTH_PER_MINUTE,
        },
      });
      const users = await startUsers({
        config,
        db,
        logger,
        store,
        organizations,
        authenticator,
        limits,
        leases,
      });
      if (!broker) throw new Error('the gateway needs the broker for live updates');
      const live = await startLiveEvents({ config, db, broker, logger });
      const metricsListener =
        config.METRICS_PORT === undefined
          ? undefined
          : await startHttpServer(
              express().use(metricsRoute(metrics)),
              config.METRICS_PORT,
              config.HOST,
            );
      if (metricsListener) logger.info({ port: metricsListener.port }, 'metrics listening');
      return {
        // Proxied operations skip express' middleware chain (see createFastApiPath).
        preRoute: createFastApiPath({
          authenticator,
          proxy,
          webhooks: createInboundWebhookBatches(proxy),
          limits,
          logger,
          metrics,
          trustedHops: config.TRUST_PROXY_HOPS,
        }),
        // The provider signs the raw bytes; they must reach inbound untouched and unauthenticated.
        rawRoutes: (app) => {
          if (config.TRUST_PROXY_HOPS > 0) app.set('trust proxy', config.TRUST_PROXY_HOPS);
          app.use(refuseUnplainPaths);
          app.all('/webhook/svc/receive/:token', (req, res) =>
            proxy.forward(
              'inbound',
              req,
              res,
              ownerPath('/webhook/svc/receive/', rawPathOf(req.originalUrl)),
            ),
          );
        },
        routes: (router) => {
          router.use(methodGuard());
          adminRoutes(router, {
            adminToken: config.ADMIN_API_TOKEN,
            organizations,
            channels: messagingChannels(proxy),
            limits,
            ownerFor: users.ownerFor,
            phoneNumbers: messagingPhoneNumbers(proxy),
          });
          internalRoutes(router, { organizations, internalSecret: config.INTERNAL_API_SECRET });
          users.routes(router);
          live.routes(router, { sessions: users.sessions, cookie: users.cookie, limits });
          usageRoutes(router, {
            authenticate: users.authenticate,
            usage: {
              countUsed: usageCounters(proxy, Math.min(USAGE_TIMEOUT_MS, config.PROXY_TIMEOUT_MS)),
              seatsUsed: users.seatsUsed,
            },
          });
          apiRoutes(router, {
            authenticator,
            proxy,
            limits,
            authenticate: users.authenticate,
            edgeChecks: { assignConversation: checkAssignee(users.checkAssignable) },
          });
          consoleRoutes(router);
        },
        startConsumers: () => live.start(users.sessions),
        onStopping: () => live.endStreams(),
        onStop: async () => {
          await live.stop();
          await users.stop();
          proxy.shutdown();
          await metricsListener?.close(config.SHUTDOWN_TIMEOUT_MS);
        },
      };
    },
  });
}
