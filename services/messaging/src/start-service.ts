import { CONSUMER_RETRY_DELAY_MS, EXCHANGES, eventRoutingKey } from '@switchboard/contracts';
import { createEventRelay, eventBatchPublisher, eventPublisher } from '@switchboard/service-kit';
import {
  createIdBlocks,
  nextId,
  reportReseal,
  serviceSecretBox,
  startPeriodicJob,
  startResealJob,
  startServiceRuntime,
  type PeriodicJob,
  type RunningService,
} from '@switchboard/service-kit';
import type { MessagingConfig } from './config';
import { createChannelStore } from './data-access/channel-store';
import { createConversationStore } from './data-access/conversation-store';
import { createIdempotencyStore } from './data-access/idempotency-store';
import { createInboundMediaStore } from './data-access/inbound-media-store';
import { createMessageStore } from './data-access/message-store';
import { createNoticeStore } from './data-access/notice-store';
import { createMessageQuotaCounter } from './data-access/quota-store';
import { createTemplateStore } from './data-access/template-store';
import { createChannelDirectory } from './domain/channel-directory';
import { createMessageQuota } from './domain/message-quota';
import { createChannels } from './domain/provision-channel';
import { createKeyedLock } from './domain/keyed-lock';
import { eventIdsIn } from './domain/message-events';
import { createConsolePublisher } from './domain/inbox/console-events';
import { createAccountStatusReader } from './domain/reading/account-status';
import { createPacing } from './domain/sending/deliver-to-provider';
import { createSender } from './domain/sending/send-message';
import { syncTemplates, type TemplateDeps } from './domain/templates/manage-templates';
import { consumeProviderEvents } from './entry-points/broker/provider-events-consumer';
import { consumeSendCommands } from './entry-points/broker/send-commands-consumer';
import { channelRoutes } from './entry-points/http/channel-routes';
import { inboxRoutes } from './entry-points/http/inbox-routes';
import { createInbox } from './domain/inbox/manage-conversations';
import { createMediaReader } from './domain/media/read-inbound-media';
import { quotaRoutes } from './entry-points/http/quota-routes';
import { readRoutes } from './entry-points/http/read-routes';
import { sendFastPath, sendRoutes } from './entry-points/http/send-routes';
import { templateRoutes } from './entry-points/http/template-routes';
import {
  startInboundMediaFetcher,
  startInboundMediaRetentionJob,
  type InboundMediaFetcher,
} from './entry-points/jobs/inbound-media-jobs';
import { mediaRoutes } from './entry-points/http/media-routes';
import { startSendRecoveryJob } from './entry-points/jobs/send-recovery-job';
import { createCloudApi } from './outbound/cloud-api';
import { createContactsClient } from './outbound/contacts-client';
import { createProviderMedia } from './outbound/provider-media';
import { simulatorRegistrar } from './outbound/simulator-control';

/**
 * How long the clear of a message's published events waits, at most, for the message's next write
 * to carry it (the provider's statuses follow a send and one another within seconds).
 */
const MESSAGE_CLEAR_WAIT_MS = 2_000;

/**
 * How long a message's outcome events wait for those of other writes before they are published:
 * at a gentle pace each send's acceptance is a write of its own, and its message_sent would be a
 * broker message of its own, delivered to each queue it reaches. No request waits for an event.
 */
const OUTCOME_GATHER_MS = 25;

/** What messaging's keys are narrowed to (changing it makes stored credentials unreadable). */
const CHANNEL_SECRET_PURPOSE = { salt: 'switchboard-messaging', info: 'channel-credentials' };

/**
 * An interrupted send of a broker command is failed only if its command has not taken it over
 * in this time (the command is parked, not just queued behind a campaign's other sends).
 */
const COMMAND_SEND_GRACE_MS = 30 * 60_000;

/** Up to 64 message ids per counter write; a block unused for a second is dropped. */
const MESSAGE_ID_BLOCKS = { maxBlock: 64, maxAgeMs: 1000 };

/** Channels, sending, provider events → domain state and events, and the messages API. */
export function startService(config: MessagingConfig): Promise<RunningService<MessagingConfig>> {
  return startServiceRuntime({
    service: 'messaging',
    config,
    async setup({ db, broker, logger, leases, metrics }) {
      const channels = createChannelStore(
        db,
        serviceSecretBox({ config, purpose: CHANNEL_SECRET_PURPOSE, logger }),
      );
      const messages = createMessageStore(db);
      // Every change of a conversation's assignee, status or unread count reaches the console.
      const conversations = createConversationStore(db, createConsolePublisher(broker, logger));
      const notices = createNoticeStore(db);
      const templates = createTemplateStore(db);
      const inboundMedia = createInboundMediaStore(db);
      const quotas = createMessageQuotaCounter(db);
      const [channelsResealed] = await Promise.all([
        channels.init(),
        messages.init(),
        inboundMedia.init(),
        conversations.init(),
        notices.init(),
        templates.init(),
        quotas.init(),
      ]);
      reportReseal(logger, 'channels', channelsResealed);
      const idempotency = createIdempotencyStore(db);

      const register = config.PROVIDER_SIMULATOR_URL
        ? simulatorRegistrar(config.PROVIDER_SIMULATOR_URL, logger)
        : undefined;
      const defaults = {
        publicBaseUrl: config.PUBLIC_BASE_URL,
        providerBaseUrl: config.PROVIDER_BASE_URL,
        apiVersion: config.PROVIDER_API_VERSION,
      };
      const directory = createChannelDirectory(channels, config.CHANNEL_CACHE_TTL_MS);
      const cloudApi = createCloudApi({
        logger,
        timeoutMs: config.PROVIDER_TIMEOUT_MS,
        maxInFlight: config.PROVIDER_MAX_IN_FLIGHT_PER_CHANNEL,
      });
      const contacts = createContactsClient({
        baseURL: config.CONTACTS_URL,
        internalSecret: config.INTERNAL_API_SECRET,
        logger,
        cacheTtlMs: config.CONTACT_CACHE_TTL_MS,
      });
      const relay = createEventRelay({
        sources: [messages.outbox, notices.outbox],
        // A message's outcome is routed as a campaign's or a direct one (campaigns takes only its own).
        publish: eventPublisher(broker, 'messaging', EXCHANGES.events, eventRoutingKey),
        // The outcomes a batched write stored go in batch messages, by the queues they reach.
        publishMany: eventBatchPublisher(broker, 'messaging', EXCHANGES.events, eventRoutingKey),
        logger,
        sweepIntervalMs: config.EVENT_RELAY_SWEEP_MS,
        graceMs: config.EVENT_RELAY_GRACE_MS,
        leases,
        // A message's next write (its next status) usually follows its events within a second or
        // two: their clear waits that long to ride on it instead of writing the message once more.
        clearWaitMs: MESSAGE_CLEAR_WAIT_MS,
        gatherMs: OUTCOME_GATHER_MS,
      });
      // Message ids come from blocks this process reserves, not one counter write per message;
      // with several replicas they follow creation order to within a block's age.
      const nextMessageId = createIdBlocks(db, 'messages', MESSAGE_ID_BLOCKS);
      // Event ids derived from the messaging database's name: unique per deployment.
      const eventIds = eventIdsIn(db.name);
      const lock = createKeyedLock();
      const templateDeps: TemplateDeps = {
        templates,
        channels: directory,
        cloudApi,
        nextTemplateId: () => nextId(db, 'templates'),
        logger,
      };
      const accountStatus = createAccountStatusReader(
        { channels: directory, cloudApi, notices: channels },
        config.ACCOUNT_STATUS_CACHE_MS,
      );
      let templateSync: PeriodicJob | undefined;
      let sendRecovery: PeriodicJob | undefined;
      let mediaFetcher: InboundMediaFetcher | undefined;
      let mediaRetention: PeriodicJob | undefined;
      const providerMedia = createProviderMedia({
        logger,
        timeoutMs: config.INBOUND_MEDIA_TIMEOUT_MS,
      });
      const reseal = startResealJob({
        what: 'channels',
        everyMs: config.SECRET_RESEAL_INTERVAL_MS,
        logger,
        reseal: () => channels.reseal(),
        leases,
      });
      const sender = createSender({
        nextMessageId,
        messages,
        conversations,
        quotas,
        idempotency,
        templates,
        channels: directory,
        cloudApi,
        contacts,
        relay,
        eventIds,
        lock,
        pacing: createPacing(config.SEND_RATE_PER_SECOND),
        retry: {
          maxAttempts: config.SEND_MAX_ATTEMPTS,
          baseDelayMs: config.SEND_RETRY_BASE_MS,
          budgetMs: config.SEND_RETRY_BUDGET_MS,
        },
        leaseMs: config.SEND_LEASE_MS,
        logger,
      });

      return {
        preRoute: sendFastPath({
          sender,
          internalSecret: config.INTERNAL_API_SECRET,
          bodyLimit: config.HTTP_BODY_LIMIT,
          logger,
          metrics,
        }),
        routes: (router) => {
          channelRoutes(router, {
            channels: createChannels({
              store: channels,
              defaults,
              register,
              onChanged: (company_id) => directory.forget(company_id),
            }),
          });
          quotaRoutes(router, { quota: createMessageQuota(quotas) });
          sendRoutes(router, { sender, mediaMaxBytes: config.MEDIA_MAX_BYTES });
          readRoutes(router, {
            messages,
            conversations,
            contacts,
            accountStatus,
            logger,
            markRead: { messages, conversations, channels: directory, cloudApi },
          });
          mediaRoutes(router, { media: createMediaReader(inboundMedia) });
          inboxRoutes(router, { inbox: createInbox(conversations) });
          templateRoutes(router, {
            ...templateDeps,
            media: {
              maxBytes: config.MEDIA_MAX_BYTES,
              allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
            },
          });
        },
        startConsumers: async () => {
          if (!broker) return;
          await consumeProviderEvents(
            broker,
            {
              nextMessageId,
              messages,
              conversations,
              contacts,
              relay,
              eventIds,
              lock,
              notices,
              channels,
              directory,
              numbers: directory,
              logger,
              templates,
              emitReservedEvents: config.EMIT_RESERVED_EVENTS,
              agentReplyPauseMs: config.AGENT_REPLY_PAUSE_MS,
              accountChanged: (company_id) => accountStatus.forget(company_id),
              inboundMedia: { store: inboundMedia, kick: () => mediaFetcher?.kick() },
            },
            config.PROVIDER_EVENTS_PREFETCH,
          );
          await consumeSendCommands(
            broker,
            { sender, logger },
            {
              prefetch: config.COMMAND_PREFETCH,
              maxAttempts: config.COMMAND_MAX_ATTEMPTS,
              // A command meeting a send that a dead process leased waits out twice that lease.
              maxPostponements: Math.ceil((2 * config.SEND_LEASE_MS) / CONSUMER_RETRY_DELAY_MS),
            },
          );
          relay.start();
          mediaFetcher = startInboundMediaFetcher(
            {
              media: inboundMedia,
              messages,
              channels: directory,
              providerMedia,
              relay,
              eventIds,
              logger,
              publicBaseUrl: config.PUBLIC_BASE_URL,
              capBytes: config.INBOUND_MEDIA_MAX_BYTES,
              maxAttempts: config.INBOUND_MEDIA_MAX_ATTEMPTS,
              retryBaseMs: config.INBOUND_MEDIA_RETRY_BASE_MS,
              // Two calls of at most the timeout each, and the writes after them.
              leaseMs: 3 * config.INBOUND_MEDIA_TIMEOUT_MS,
              concurrency: config.INBOUND_MEDIA_CONCURRENCY,
            },
            config.INBOUND_MEDIA_SWEEP_MS,
          );
          mediaRetention = startInboundMediaRetentionJob(
            { media: inboundMedia, messages, logger },
            config.INBOUND_MEDIA_RETENTION_DAYS,
            config.INBOUND_MEDIA_RETENTION_INTERVAL_MS,
          );
          sendRecovery = startSendRecoveryJob(
            {
              messages,
              quotas,
              sender,
              leaseMs: config.SEND_LEASE_MS,
              commandGraceMs: COMMAND_SEND_GRACE_MS,
              logger,
            },
            config.SEND_RECOVERY_INTERVAL_MS,
            leases,
          );
          templateSync = startPeriodicJob({
            name: 'template-sync',
            everyMs: config.TEMPLATE_SYNC_INTERVAL_MS,
            logger,
            leases,
            run: async () => {
              for (const company_id of await channels.companyIds()) {
                await syncTemplates(templateDeps, company_id).catch((error: unknown) =>
                  logger.warn({ err: error, company_id }, 'template sync failed'),
                );
              }
            },
          });
        },
        onStop: async () => {
          await reseal.stop();
          await templateSync?.stop();
          await sendRecovery?.stop();
          await mediaFetcher?.stop();
          await mediaRetention?.stop();
          await relay.stop();
          await quotas.drain();
          await conversations.drain();
          await messages.drain();
          cloudApi.shutdown();
          providerMedia.shutdown();
          contacts.shutdown();
        },
      };
    },
  });
}
