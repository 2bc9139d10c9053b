import type { Router } from 'express';
import type { Connection } from 'mongoose';
import {
  nextId,
  type Broker,
  type Leases,
  type Logger,
  type ServiceMetrics,
} from '@switchboard/service-kit';
import { assembleAiBot } from './assemble-ai-bot';
import type { CampaignsConfig } from './config';
import { createAutomationStateStore } from './data-access/automation/automation-state-store';
import { createFlowSessionStore } from './data-access/automation/flow-session-store';
import { createFlowStore } from './data-access/automation/flow-store';
import { createReplyStore } from './data-access/automation/reply-store';
import { answerOrder, type AutomationDeps } from './domain/automation/answer-inbound-message';
import { createFlowResponder } from './domain/automation/flows/flow-responder';
import { createHandOver } from './domain/automation/hand-over';
import { createOptOutResponder, keywordList } from './domain/automation/opt-out';
import { createReplyResponders, type BotCampaigns } from './domain/automation/reply-responders';
import type { Responder } from './domain/automation/responder';
import { consumeInboundForAutomation } from './entry-points/broker/automation/answer-inbound-consumer';
import { aiBotRoutes } from './entry-points/http/automation/ai-bot-routes';
import { automatedReplyRoutes } from './entry-points/http/automation/automated-reply-routes';
import { flowRoutes } from './entry-points/http/automation/flow-routes';
import { createOrganizationDirectory } from './outbound/organization-directory';
import type { ServiceClients } from './outbound/service-clients';

/**
 * Automated answers to inbound messages: the automated replies, flows, the AI bot and opt-out
 * words, their stores, the consumer of `message_received` and their routes. Bot campaigns are
 * the one thing automation asks of the campaigns domain (`botCampaigns`).
 */
export async function startAutomation(deps: {
  config: CampaignsConfig;
  db: Connection;
  broker: Broker | undefined;
  clients: ServiceClients;
  botCampaigns: BotCampaigns;
  publishCommand: AutomationDeps['publishCommand'];
  logger: Logger;
  metrics: ServiceMetrics;
  leases?: Leases;
  /** Tests may stand other steps in for flows and the AI bot. */
  responders?: { flow?: Responder; aiBot?: Responder };
}) {
  const { config, db, broker, clients, logger } = deps;
  const flows = createFlowStore(db);
  const flowSessions = createFlowSessionStore(db);
  const replies = createReplyStore(db);
  const states = createAutomationStateStore(db);
  await Promise.all([flows, flowSessions, replies, states].map((store) => store.init()));
  const organizations = createOrganizationDirectory({
    gatewayUrl: config.GATEWAY_URL,
    internalSecret: config.INTERNAL_API_SECRET,
    logger,
    cacheMs: config.ORGANIZATION_CACHE_MS,
  });
  const handOver = createHandOver({ states, clients, logger });
  const aiBot = await assembleAiBot({ config, db, clients, logger, leases: deps.leases, handOver });
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
      ...createReplyResponders({ replies, botCampaigns: deps.botCampaigns }),
      aiBot: aiBot.respond,
      ...deps.responders,
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
    publishCommand: deps.publishCommand,
    logger,
    maxAnswersPerMinute: config.AUTOMATION_MAX_ANSWERS_PER_MINUTE,
  };

  return {
    routes(router: Router): void {
      aiBotRoutes(router, aiBot.settings);
      flowRoutes(router, { flows, nextFlowId: () => nextId(db, 'flows'), logger });
      automatedReplyRoutes(router, {
        replies,
        states,
        clients,
        nextReplyId: () => nextId(db, 'automated_replies'),
      });
    },
    async startConsumers(): Promise<void> {
      if (!broker) return;
      await consumeInboundForAutomation(
        broker,
        automation,
        config.AUTOMATION_PREFETCH,
        deps.metrics,
      );
    },
    async stop(): Promise<void> {
      await aiBot.shutdown();
      organizations.shutdown();
    },
  };
}
