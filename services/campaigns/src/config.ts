import { z } from 'zod';
import {
  baseConfigShape,
  encryptionKeySchema,
  loadConfig,
  portSchema,
} from '@switchboard/service-kit';

export const campaignsConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8083),
  MESSAGING_URL: z.string().url().default('http://127.0.0.1:8081'),
  CONTACTS_URL: z.string().url().default('http://127.0.0.1:8082'),
  /** The gateway's internal API: an organization's plan, for automated answers. */
  GATEWAY_URL: z.string().url().default('http://127.0.0.1:8080'),
  /** An API campaign's send waits for messaging, which may retry the provider for a while. */
  SEND_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** How often scheduled campaigns are started and interrupted work is resumed. */
  SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),
  /** Contacts read and commands handed to messaging per step of a campaign's dispatch. */
  DISPATCH_PAGE_SIZE: z.coerce.number().int().min(1).max(1_000).default(500),
  PROGRESS_PREFETCH: z.coerce.number().int().min(1).default(50),
  /** How often campaigns are searched for events left unpublished (broker down, process died). */
  EVENT_RELAY_SWEEP_MS: z.coerce.number().int().min(50).default(10_000),
  EVENT_RELAY_GRACE_MS: z.coerce.number().int().min(0).default(5_000),
  /** AI bot: the messages of the conversation sent with each question, newest last. */
  AI_BOT_HISTORY_MESSAGES: z.coerce.number().int().min(1).max(100).default(10),
  /** Wall-clock limit of one call to an organization's chat-completions endpoint. */
  AI_BOT_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** Per-endpoint breaker: opens at this failure percentage over at least AI_BOT_BREAKER_VOLUME calls. */
  AI_BOT_BREAKER_ERROR_PERCENT: z.coerce.number().int().min(1).max(100).default(50),
  AI_BOT_BREAKER_VOLUME: z.coerce.number().int().positive().default(5),
  AI_BOT_BREAKER_RESET_MS: z.coerce.number().int().positive().default(30_000),
  /** The former single key of the bots' API keys (32 bytes, base64): opens what it sealed; see SECRET_ENCRYPTION_KEYS. */
  AI_BOT_KEY_ENCRYPTION_KEY: encryptionKeySchema,
  /** A flow session no message has moved for this long is over. */
  FLOW_SESSION_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(30 * 60_000),
  /** Automated answers one contact may get per minute (stops bot-to-bot loops). */
  AUTOMATION_MAX_ANSWERS_PER_MINUTE: z.coerce.number().int().min(1).default(5),
  /**
   * A message that is one of these words (whole message; case, accents and punctuation ignored)
   * unsubscribes its contact, comma-separated.
   */
  OPT_OUT_KEYWORDS: z
    .string()
    .default(
      'STOP,STOPALL,UNSUBSCRIBE,OPTOUT,OPT OUT,PARAR,BAJA,ARRET,ARRETER,DESABONNER,STOPP,ABMELDEN,DISISCRIVIMI,DESCADASTRAR',
    ),
  /** A message that is one of these words subscribes its contact again, comma-separated. */
  OPT_IN_KEYWORDS: z.string().default('START,UNSTOP,SUBSCRIBE,ALTA,INICIAR,REPRENDRE'),
  /** The answer to an opt-out word. */
  OPT_OUT_CONFIRMATION: z
    .string()
    .min(1)
    .max(4096)
    .default(
      'You are unsubscribed and will get no more messages from us. Reply START to subscribe again.',
    ),
  /** The answer to an opt-in word. */
  OPT_IN_CONFIRMATION: z
    .string()
    .min(1)
    .max(4096)
    .default('You are subscribed again. Reply STOP to unsubscribe.'),
  AUTOMATION_PREFETCH: z.coerce.number().int().min(1).default(20),
  /** How long an organization's plan is trusted without asking the gateway again. */
  ORGANIZATION_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
});

export type CampaignsConfig = z.infer<typeof campaignsConfigSchema>;

export const loadCampaignsConfig = (env = process.env) => loadConfig(campaignsConfigSchema, env);
