import { EXCHANGES, ROUTING_KEYS } from '@switchboard/contracts';
import {
  apiPathsOwnedBy,
  createEventRelay,
  nextId,
  notImplementedRoutes,
  startServiceRuntime,
  type PeriodicJob,
  type RunningService,
} from '@switchboard/service-kit';
import { assembleAiBot } from './assemble-ai-bot';
import type { CampaignsConfig } from './config';
import { createCampaignQuotaStore } from './data-access/campaign-quota-store';
import { createCampaignStore } from './data-access/campaign-store';
import { createFlowSessionStore } from './data-access/flow-session-store';
import { createFlowStore } from './data-access/flow-store';
import { createRecipientStore } from './data-access/recipient-store';
import type { CampaignsDeps } from './domain/dependencies';
import { consumeProgressEvents } from './entry-points/broker/progress-consumer';
import { aiBotRoutes } from './entry-points/http/ai-bot-routes';
import { campaignRoutes } from './entry-points/http/campaign-routes';
import { flowRoutes } from './entry-points/http/flow-routes';
import { createDispatcher, startCampaignJobs } from './entry-points/jobs/campaign-jobs';
import { createServiceClients } from './outbound/service-clients';

/** Automated replies, flows and the AI bot come with issue 8. */
const SERVED = new Set(
  [
    'getCampaigns',
    'createCampaign',
    'getCampaign',
    'startCampaign',
    'cancelCampaign',
    'deleteCampaign',
    'sendcampaigns',
    'sendCampaignMessageToPhoneNumber',
    'getAIBotSettings',
    'updateAIBotSettings',
    'getFlows',
    'addFlow',
    'updateFlow',
    'deleteFlow',
  ].map((operation) => `/api/svc/${operation}`),
);

/** Campaigns: regular (to an audience), API (one message on call) and bot (matched by keywords). */
export function startService(config: CampaignsConfig): Promise<RunningService<CampaignsConfig>> {
  return startServiceRuntime({
    service: 'campaigns',
    config,
    async setup({ db, broker, logger }) {
      const campaigns = createCampaignStore(db);
      const recipients = createRecipientStore(db);
      const flows = createFlowStore(db);
      // Sessions are moved by the flow responder (domain/automation/flows), which the
      // message_received pipeline asks first; the store is built here so its indexes exist.
      const flowSessions = createFlowSessionStore(db);
      await Promise.all([campaigns.init(), recipients.init(), flows.init(), flowSessions.init()]);
      const clients = createServiceClients({
        contactsUrl: config.CONTACTS_URL,
        messagingUrl: config.MESSAGING_URL,
        internalSecret: config.INTERNAL_API_SECRET,
        logger,
        sendTimeoutMs: config.SEND_TIMEOUT_MS,
      });
      // `aiBot.respond` is the last responder of the answer order (issue 8 point 2).
      const aiBot = assembleAiBot({ config, db, clients, logger });
      const relay = createEventRelay({
        sources: [campaigns.outbox],
        publish: async (event) => {
          if (!broker) throw new Error('campaigns runs without a broker');
          await broker.publish(EXCHANGES.events, event.event, event, { messageId: event.id });
        },
        logger,
        sweepIntervalMs: config.EVENT_RELAY_SWEEP_MS,
        graceMs: config.EVENT_RELAY_GRACE_MS,
      });
      const base = {
        campaigns,
        recipients,
        quotas: createCampaignQuotaStore(db),
        clients,
        relay,
        nextCampaignId: () => nextId(db, 'campaigns'),
        publishCommand: async (command: unknown, messageId: string) => {
          if (!broker) throw new Error('campaigns runs without a broker');
          await broker.publish(EXCHANGES.commands, ROUTING_KEYS.commands.send, command, {
            messageId,
          });
        },
        logger,
        dispatchPageSize: config.DISPATCH_PAGE_SIZE,
      };
      const dispatcher = createDispatcher(base);
      const deps: CampaignsDeps = { ...base, dispatchSoon: dispatcher.dispatchSoon };
      let jobs: PeriodicJob | undefined;

      return {
        routes: (router) => {
          campaignRoutes(router, deps);
          aiBotRoutes(router, aiBot.settings);
          flowRoutes(router, { flows, nextFlowId: () => nextId(db, 'flows'), logger });
          notImplementedRoutes(
            router,
            apiPathsOwnedBy('campaigns').filter((path) => !SERVED.has(path)),
          );
        },
        startConsumers: async () => {
          if (broker) await consumeProgressEvents(broker, deps, config.PROGRESS_PREFETCH);
          relay.start();
          jobs = startCampaignJobs(deps, config.SCHEDULER_INTERVAL_MS);
        },
        onStop: async () => {
          await jobs?.stop();
          await dispatcher.idle();
          await relay.stop();
          aiBot.shutdown();
          clients.shutdown();
        },
      };
    },
  });
}
