import { EXCHANGES, ROUTING_KEYS } from '@switchboard/contracts';
import {
  createEventRelay,
  nextId,
  startServiceRuntime,
  type PeriodicJob,
  type RunningService,
} from '@switchboard/service-kit';
import { assembleAiBot } from './assemble-ai-bot';
import type { CampaignsConfig } from './config';
import { createCampaignQuotaStore } from './data-access/campaign-quota-store';
import { createAutomationStateStore } from './data-access/automation-state-store';
import { createCampaignStore } from './data-access/campaign-store';
import { createFlowSessionStore } from './data-access/flow-session-store';
import { createFlowStore } from './data-access/flow-store';
import { createRecipientStore } from './data-access/recipient-store';
import { createReplyStore } from './data-access/reply-store';
import { answerOrder, type AutomationDeps } from './domain/automation/answer-inbound-message';
import { createOptOutResponder, keywordList } from './domain/automation/opt-out';
import { createFlowResponder } from './domain/automation/flows/flow-responder';
import { createReplyResponders } from './domain/automation/reply-responders';
import type { Responder } from './domain/automation/responder';
import type { CampaignsDeps } from './domain/dependencies';
import { createProgressNotices } from './domain/progress-notices';
import { consumeInboundForAutomation } from './entry-points/broker/automation-consumer';
import { consumeProgressEvents } from './entry-points/broker/progress-consumer';
import { aiBotRoutes } from './entry-points/http/ai-bot-routes';
import { automatedReplyRoutes } from './entry-points/http/automated-reply-routes';
import { campaignRoutes } from './entry-points/http/campaign-routes';
import { usageRoutes } from './entry-points/http/usage-routes';
import { flowRoutes } from './entry-points/http/flow-routes';
import { createDispatcher, startCampaignJobs } from './entry-points/jobs/campaign-jobs';
import { createOrganizationDirectory } from './outbound/organization-directory';
import { createServiceClients } from './outbound/service-clients';

/** Tests may stand other steps in for flows and the AI bot. */
export interface StartOptions {
  responders?: { flow?: Responder; aiBot?: Responder };
}

/** Campaigns: regular (to an audience), API (one message on call) and bot (matched by keywords). */
export function startService(
  config: CampaignsConfig,
  options: StartOptions = {},
): Promise<RunningService<CampaignsConfig>> {
  return startServiceRuntime({
    service: 'campaigns',
    config,
    async setup({ db, broker, logger, metrics, leases }) {
      const campaigns = createCampaignStore(db);
      const recipients = createRecipientStore(db);
      const flows = createFlowStore(db);
      const flowSessions = createFlowSessionStore(db);
      const replies = createReplyStore(db);
      const states = createAutomationStateStore(db);
      await Promise.all(
        [campaigns, recipients, flows, flowSessions, replies, states].map((store) => store.init()),
      );
      const organizations = createOrganizationDirectory({
        gatewayUrl: config.GATEWAY_URL,
        internalSecret: config.INTERNAL_API_SECRET,
        logger,
        cacheMs: config.ORGANIZATION_CACHE_MS,
      });
      const clients = createServiceClients({
        contactsUrl: config.CONTACTS_URL,
        messagingUrl: config.MESSAGING_URL,
        internalSecret: config.INTERNAL_API_SECRET,
        logger,
        sendTimeoutMs: config.SEND_TIMEOUT_MS,
      });
      // A flow's hand-over step and the AI bot's hand-over: automated answers stop for the contact
      // and the conversation waits for a person in the inbox.
      const handOver = async (company_id: number, contact_id: number) => {
        await states.turnBotsOff(company_id, contact_id);
        if (!(await clients.markNeedsHuman(company_id, contact_id))) {
          logger.warn({ company_id, contact_id }, 'hand-over: the contact has no conversation');
        }
      };
      const aiBot = await assembleAiBot({ config, db, clients, logger, leases, handOver });
      const relay = createEventRelay({
        sources: [campaigns.outbox],
        publish: async (event) => {
          if (!broker) throw new Error('campaigns runs without a broker');
          await broker.publish(EXCHANGES.events, event.event, event, { messageId: event.id });
        },
        logger,
        sweepIntervalMs: config.EVENT_RELAY_SWEEP_MS,
        graceMs: config.EVENT_RELAY_GRACE_MS,
        leases,
      });
      const notices = createProgressNotices({
        findMany: (ids) => campaigns.findManyByIds(ids),
        publish: async (event) => {
          if (!broker) throw new Error('campaigns runs without a broker');
          await broker.publish(EXCHANGES.console, event.event, event, { messageId: event.id });
        },
        logger,
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
        progressChanged: notices.changed,
      };
      const dispatcher = createDispatcher(base);
      const deps: CampaignsDeps = { ...base, dispatchSoon: dispatcher.dispatchSoon };
      const automation: AutomationDeps = {
        replies,
        states,
        organizations,
        clients,
        responders: answerOrder({
          flow: createFlowResponder({
            flows,
            sessions: flowSessions,
            updateContact: clients.updateContact,
            turnBotsOff: handOver,
            logger,
            sessionTimeoutMs: config.FLOW_SESSION_TIMEOUT_MS,
          }),
          ...createReplyResponders({ replies, campaigns }),
          aiBot: aiBot.respond,
          ...options.responders,
        }),
        optOut: createOptOutResponder({
          settings: {
            stopWords: keywordList(config.OPT_OUT_KEYWORDS),
            startWords: keywordList(config.OPT_IN_KEYWORDS),
            stopConfirmation: config.OPT_OUT_CONFIRMATION,
            startConfirmation: config.OPT_IN_CONFIRMATION,
          },
          setSubscription: (company_id, contact_id, subscription) =>
            clients.updateContact(company_id, contact_id, { subscription }),
        }),
        publishCommand: base.publishCommand,
        logger,
        maxAnswersPerMinute: config.AUTOMATION_MAX_ANSWERS_PER_MINUTE,
      };
      const replyDeps = {
        replies,
        states,
        clients,
        nextReplyId: () => nextId(db, 'automated_replies'),
      };
      let jobs: PeriodicJob | undefined;

      return {
        routes: (router) => {
          campaignRoutes(router, deps);
          usageRoutes(router, deps);
          aiBotRoutes(router, aiBot.settings);
          flowRoutes(router, { flows, nextFlowId: () => nextId(db, 'flows'), logger });
          automatedReplyRoutes(router, replyDeps);
        },
        startConsumers: async () => {
          if (broker) await consumeProgressEvents(broker, deps, config.PROGRESS_PREFETCH);
          if (broker) {
            await consumeInboundForAutomation(
              broker,
              automation,
              config.AUTOMATION_PREFETCH,
              metrics,
            );
          }
          relay.start();
          jobs = startCampaignJobs(deps, config.SCHEDULER_INTERVAL_MS, leases);
        },
        onStop: async () => {
          await jobs?.stop();
          await dispatcher.idle();
          await notices.stop();
          await relay.stop();
          await aiBot.shutdown();
          clients.shutdown();
          organizations.shutdown();
        },
      };
    },
  });
}
