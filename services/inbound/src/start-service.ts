import {
  reportReseal,
  serviceSecretBox,
  startResealJob,
  startServiceRuntime,
  type RunningService,
} from '@switchboard/service-kit';
import type { InboundConfig } from './config';
import { createChannelCopyStore } from './data-access/channel-copy-store';
import { createInboundEventStore } from './data-access/inbound-event-store';
import { startRelay } from './entry-points/jobs/relay-and-cleanup';
import { receiveFastPath, receiveRoutes } from './entry-points/http/receive-routes';
import { createWebhookIntake } from './domain/webhook-intake';
import { createChannelDirectory } from './domain/channel-directory';
import { createMessagingChannels } from './outbound/messaging-channels';

/** What inbound's keys are narrowed to (changing it makes the kept copies unreadable). */
const CHANNEL_COPY_PURPOSE = { salt: 'switchboard-inbound', info: 'channel-copies' };

/** The provider's webhook: verify, publish, store, answer (and relay what could not be published). */
export function startService(config: InboundConfig): Promise<RunningService<InboundConfig>> {
  return startServiceRuntime({
    service: 'inbound',
    config,
    async setup({ db, broker, logger, leases, metrics }) {
      const store = createInboundEventStore(db);
      await store.init();
      const copies = createChannelCopyStore(
        db,
        serviceSecretBox({ config, purpose: CHANNEL_COPY_PURPOSE, logger }),
      );
      reportReseal(logger, 'channel copies', await copies.reseal());
      const reseal = startResealJob({
        what: 'channel copies',
        everyMs: config.SECRET_RESEAL_INTERVAL_MS,
        logger,
        reseal: () => copies.reseal(),
        leases,
      });
      const messaging = createMessagingChannels({
        messagingUrl: config.MESSAGING_URL,
        internalSecret: config.INTERNAL_API_SECRET,
        logger,
      });
      const channels = createChannelDirectory({
        messaging,
        ttlMs: config.CHANNEL_CACHE_TTL_MS,
        copies,
        logger,
      });
      const intake = createWebhookIntake({ store, broker: broker!, logger });
      let relay: { stop(): Promise<void> } | undefined;
      return {
        preRoute: receiveFastPath({
          channels,
          intake,
          bodyLimit: config.INBOUND_BODY_LIMIT,
          logger,
          metrics,
          internalSecret: config.INTERNAL_API_SECRET,
        }),
        rawRoutes: (app) =>
          receiveRoutes(app, {
            channels,
            intake,
            bodyLimit: config.INBOUND_BODY_LIMIT,
          }),
        startConsumers: async () => {
          relay = startRelay({
            broker: broker!,
            store,
            logger,
            intervalMs: config.RELAY_INTERVAL_MS,
            graceMs: config.RELAY_GRACE_MS,
            retentionDays: config.INBOUND_RETENTION_DAYS,
            leases,
          });
        },
        onStop: async () => {
          await reseal.stop();
          await intake.drain();
          await relay?.stop();
          messaging.shutdown();
        },
      };
    },
  });
}
