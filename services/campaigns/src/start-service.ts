import { EXCHANGES, ROUTING_KEYS } from '@switchboard/contracts';
import { startServiceRuntime, type RunningService } from '@switchboard/service-kit';
import type { CampaignsConfig } from './config';
import type { Responder } from './domain/automation/responder';
import { createServiceClients } from './outbound/service-clients';
import { startAutomation } from './start-automation';
import { startCampaigns } from './start-campaigns';

/** Tests may stand other steps in for flows and the AI bot. */
export interface StartOptions {
  responders?: { flow?: Responder; aiBot?: Responder };
}

/**
 * Campaigns: regular (to an audience), API (one message on call) and bot (matched by keywords),
 * and automation: the automated answers to inbound messages. Two domains in one process; each is
 * wired in its own `start-*` file and they share the clients of contacts and messaging.
 */
export function startService(
  config: CampaignsConfig,
  options: StartOptions = {},
): Promise<RunningService<CampaignsConfig>> {
  return startServiceRuntime({
    service: 'campaigns',
    config,
    async setup({ db, broker, logger, metrics, leases }) {
      const clients = createServiceClients({
        contactsUrl: config.CONTACTS_URL,
        messagingUrl: config.MESSAGING_URL,
        internalSecret: config.INTERNAL_API_SECRET,
        logger,
        sendTimeoutMs: config.SEND_TIMEOUT_MS,
      });
      // Both domains hand their messages to messaging as `messaging.send` commands.
      const publishCommand = async (command: unknown, messageId: string) => {
        if (!broker) throw new Error('campaigns runs without a broker');
        await broker.publish(EXCHANGES.commands, ROUTING_KEYS.commands.send, command, {
          messageId,
        });
      };
      const shared = { config, db, broker, clients, publishCommand, logger, leases };
      const campaigns = await startCampaigns(shared);
      const automation = await startAutomation({
        ...shared,
        botCampaigns: { active: campaigns.activeBotCampaigns },
        metrics,
        ...(options.responders ? { responders: options.responders } : {}),
      });

      return {
        routes: (router) => {
          campaigns.routes(router);
          automation.routes(router);
        },
        startConsumers: async () => {
          await campaigns.startConsumers();
          await automation.startConsumers();
        },
        onStop: async () => {
          await campaigns.stop();
          await automation.stop();
          clients.shutdown();
        },
      };
    },
  });
}
