import { lookup } from 'node:dns/promises';
import type { Connection } from 'mongoose';
import {
  serviceSecretBox,
  startFieldReseal,
  type Leases,
  type Logger,
  type UrlPolicy,
} from '@switchboard/service-kit';
import type { CampaignsConfig } from './config';
import { createAiBotSettingsStore } from './data-access/automation/ai-bot-settings-store';
import { createAiBotResponder } from './domain/automation/ai-bot/ai-bot-responder';
import type { AiBotSettingsDeps } from './domain/automation/ai-bot/manage-ai-bot-settings';
import type { Responder } from './domain/automation/responder';
import { createChatCompletionsClient } from './outbound/chat-completions-client';
import type { ServiceClients } from './outbound/service-clients';

export interface AiBot {
  /** What the settings operations need. */
  settings: AiBotSettingsDeps;
  /** The last step of the answer order. */
  respond: Responder;
  shutdown(): Promise<void>;
}

/** The AI bot's parts, from the campaigns service's config, database and clients. */
export async function assembleAiBot(options: {
  config: CampaignsConfig;
  db: Connection;
  clients: ServiceClients;
  logger: Logger;
  leases?: Leases;
  /** The bot asked for a person: bots off for the contact, the conversation needs a human. */
  handOver?: (company_id: number, contact_id: number) => Promise<void>;
}): Promise<AiBot> {
  const { config, logger } = options;
  const secrets = serviceSecretBox({
    config,
    purpose: { salt: 'switchboard-campaigns', info: 'ai-bot-key-encryption' },
    legacyKey: config.AI_BOT_KEY_ENCRYPTION_KEY,
    logger,
  });
  // Keys at rest move to the current key at start, and on a timer for values a replica that did
  // not know the new key yet wrote during a rotation.
  const reseal = await startFieldReseal({
    db: options.db,
    collection: 'ai_bot_settings',
    field: 'api_key_sealed',
    box: secrets,
    everyMs: config.SECRET_RESEAL_INTERVAL_MS,
    logger,
    leases: options.leases,
  });
  const urlPolicy: UrlPolicy = {
    allowPrivate: config.ALLOW_PRIVATE_URLS,
    resolve: async (host) => (await lookup(host, { all: true })).map((entry) => entry.address),
  };
  const settings = createAiBotSettingsStore(options.db);
  const chat = createChatCompletionsClient({
    logger,
    timeoutMs: config.AI_BOT_TIMEOUT_MS,
    urlPolicy,
    breaker: {
      errorThresholdPercentage: config.AI_BOT_BREAKER_ERROR_PERCENT,
      volumeThreshold: config.AI_BOT_BREAKER_VOLUME,
      resetTimeoutMs: config.AI_BOT_BREAKER_RESET_MS,
    },
  });
  return {
    settings: { settings, secrets, urlPolicy },
    respond: createAiBotResponder({
      settings,
      secrets,
      recentMessages: (organization, contact_id, limit, before_id) =>
        options.clients.recentMessages(organization, contact_id, limit, before_id),
      chat,
      historyMessages: config.AI_BOT_HISTORY_MESSAGES,
      logger: logger.child({ component: 'ai-bot' }),
      ...(options.handOver ? { handOver: options.handOver } : {}),
    }),
    async shutdown() {
      await reseal.stop();
      chat.shutdown();
    },
  };
}
