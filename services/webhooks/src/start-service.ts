import { lookup } from 'node:dns/promises';
import {
  serviceSecretBox,
  startFieldReseal,
  startServiceRuntime,
  type RunningService,
} from '@switchboard/service-kit';
import type { WebhooksConfig } from './config';
import { createDeliveryStore } from './data-access/delivery-store';
import { createWebhookStore } from './data-access/webhook-store';
import type { DeliveryDeps } from './domain/attempt-delivery';
import { EndpointGate } from './domain/endpoint-gate';
import type { ManageDeps } from './domain/manage-webhooks';
import { startRetentionCleanup } from './domain/retention';
import { RetrySchedule } from './domain/retry-schedule';
import { WEBHOOK_SECRET_PURPOSE } from './domain/webhook-secret';
import { brokerDeliveryQueue, startConsumers } from './entry-points/broker/consumers';
import { webhookRoutes } from './entry-points/http/webhook-routes';
import { createWebhookHttpClient } from './outbound/webhook-http-client';

/** Outbound webhooks: the management API, and delivery from `svc.events` with retries. */
export function startService(config: WebhooksConfig): Promise<RunningService<WebhooksConfig>> {
  const schedule = new RetrySchedule(config.WEBHOOK_MAX_ATTEMPTS, config.WEBHOOK_RETRY_DELAYS);
  return startServiceRuntime({
    service: 'webhooks',
    config,
    topology: schedule.topology(),
    async setup({ db, broker, logger, leases }) {
      if (!broker) throw new Error('the webhooks service needs the broker');
      const webhooks = createWebhookStore(db, { cacheTtlMs: config.WEBHOOK_CACHE_TTL_MS });
      const deliveries = createDeliveryStore(db);
      await Promise.all([webhooks.init(), deliveries.init()]);

      const secrets = serviceSecretBox({
        config,
        purpose: WEBHOOK_SECRET_PURPOSE,
        legacyKey: config.WEBHOOK_SECRET_ENCRYPTION_KEY,
        logger,
      });
      const reseal = await startFieldReseal({
        db,
        collection: 'webhooks',
        field: 'secret_sealed',
        box: secrets,
        everyMs: config.SECRET_RESEAL_INTERVAL_MS,
        logger,
        leases,
      });
      const http = createWebhookHttpClient({
        logger,
        allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
        breaker: {
          errorThresholdPercentage: config.WEBHOOK_BREAKER_ERROR_PERCENT,
          volumeThreshold: config.WEBHOOK_BREAKER_VOLUME,
          resetTimeoutMs: config.WEBHOOK_BREAKER_RESET_MS,
        },
      });
      const queue = brokerDeliveryQueue(broker);
      const delivery: DeliveryDeps = {
        deliveries,
        webhooks,
        queue,
        http,
        gate: new EndpointGate({ concurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY }),
        secrets,
        schedule,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        maxPostponements: config.WEBHOOK_MAX_POSTPONEMENTS,
        attemptsUnderWay: new Map(),
        logger,
      };
      const manage: ManageDeps = {
        webhooks,
        deliveries,
        secrets,
        urlPolicy: {
          allowPrivate: config.ALLOW_PRIVATE_URLS,
          resolve: async (host) =>
            (await lookup(host, { all: true })).map((entry) => entry.address),
        },
        forgetEndpoint: (id) => http.forget(String(id)),
      };
      const retention = startRetentionCleanup(deliveries, {
        days: config.WEBHOOK_LOG_RETENTION_DAYS,
        logger,
        leases,
      });

      return {
        routes: (router) => webhookRoutes(router, { manage, delivery }),
        startConsumers: () =>
          startConsumers(
            broker,
            { fanOut: { webhooks, deliveries }, delivery },
            {
              eventPrefetch: config.WEBHOOK_EVENT_PREFETCH,
              deliveryPrefetch: config.WEBHOOK_DELIVERY_PREFETCH,
            },
          ),
        onStop: async () => {
          await reseal.stop();
          await retention.stop();
          await deliveries.drain();
          http.shutdown();
        },
      };
    },
  });
}
