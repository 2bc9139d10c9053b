import { z } from 'zod';
import { baseConfigShape, booleanFlag, loadConfig, portSchema } from '@switchboard/service-kit';

export const messagingConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8081),
  /** The gateway's public address: inbound webhook URLs handed to the provider are built on it. */
  PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:8080'),
  /** Where new channels point until an admin sets Meta's credentials (the simulator by default). */
  PROVIDER_BASE_URL: z.string().url().default('http://127.0.0.1:8090'),
  PROVIDER_API_VERSION: z
    .string()
    .regex(/^v\d{1,3}\.0$/)
    .default('v24.0'),
  /** When set, every new channel is registered with this provider simulator's control API. */
  PROVIDER_SIMULATOR_URL: z.string().url().optional(),
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Provider calls one channel may have in progress at once: a hanging provider holds
   * no more than this; its organization's further sends are throttled (429), nobody else's.
   */
  PROVIDER_MAX_IN_FLIGHT_PER_CHANNEL: z.coerce.number().int().min(1).default(64),
  CONTACTS_URL: z.string().url().default('http://127.0.0.1:8082'),
  /** Sends per second per phone number: the provider's throughput (80 by default, as the Cloud API documents it). */
  SEND_RATE_PER_SECOND: z.coerce.number().positive().default(80),
  /** Calls to the provider per message, retries of throughput limits and 5xx/timeouts included. */
  SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(4),
  SEND_RETRY_BASE_MS: z.coerce.number().int().min(0).default(250),
  /** No retry starts later than this after the first call, so an API caller waits a bounded time. */
  SEND_RETRY_BUDGET_MS: z.coerce.number().int().min(0).default(8_000),
  /** A send in progress longer than this may be taken over by a retry with the same key. */
  SEND_LEASE_MS: z.coerce.number().int().positive().default(60_000),
  /** How often sends a dead process left are resolved (failed, their quota places given back). */
  SEND_RECOVERY_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
  /** Largest file accepted by sendmedia (the provider allows 16 MB for video and audio). */
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /**
   * Files contacts send are kept up to each kind's provider limit (images 5 MB, audio and video
   * 16 MB, stickers 500 KB, documents 100 MB), and never over this many bytes.
   */
  INBOUND_MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /** Wall-clock limit of each call fetching a file (the lookup, the download). */
  INBOUND_MEDIA_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Attempts to fetch one file before it is given up as failed. */
  INBOUND_MEDIA_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(4),
  /** Wait before the second attempt; each later wait is four times the one before. */
  INBOUND_MEDIA_RETRY_BASE_MS: z.coerce.number().int().min(0).default(5_000),
  /** Files one process fetches at once. */
  INBOUND_MEDIA_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** How often files due to be fetched are looked for (a new one is fetched at once anyway). */
  INBOUND_MEDIA_SWEEP_MS: z.coerce.number().int().min(50).default(5_000),
  /** How long a fetched file is kept; then the retention job deletes it (fractions allowed). */
  INBOUND_MEDIA_RETENTION_DAYS: z.coerce.number().positive().default(30),
  /** How often the retention job runs. */
  INBOUND_MEDIA_RETENTION_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(60 * 60 * 1000),
  /** Attempts of a `messaging.send` command before its message is recorded as failed (or parked). */
  COMMAND_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  /**
   * Send commands (a campaign's messages) in progress per replica. A prefetch window's commands
   * move through the send's batched writes together, so a campaign's pace is about this many per
   * round of writes: 64 sent a campaign at twice the pace of 32 (docs/benchmarks.md).
   */
  COMMAND_PREFETCH: z.coerce.number().int().min(1).default(64),
  /** Also the largest batch of statuses recorded together: enough unacked ones to gather one. */
  PROVIDER_EVENTS_PREFETCH: z.coerce.number().int().min(1).default(100),
  /** How often records are searched for events left unpublished (broker down, process died). */
  EVENT_RELAY_SWEEP_MS: z.coerce.number().int().min(50).default(10_000),
  /** Events younger than this are left to the write that stored them. */
  EVENT_RELAY_GRACE_MS: z.coerce.number().int().min(0).default(5_000),
  CHANNEL_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  CONTACT_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /** The published event catalog: `template_approved` / `template_rejected` are reserved, published only when on. */
  EMIT_RESERVED_EVENTS: booleanFlag(false),
  /** How often every organization's template statuses are read from the provider. */
  TEMPLATE_SYNC_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(10 * 60 * 1000),
  /**
   * After an agent sends a contact a message from the console, automated answers to that contact
   * (keyword replies, flows, the AI bot) wait this long; 0 never pauses them.
   */
  AGENT_REPLY_PAUSE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30 * 60 * 1000),
  /** How long an accountStatus answer is reused (account webhooks clear it sooner). */
  ACCOUNT_STATUS_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
});

export type MessagingConfig = z.infer<typeof messagingConfigSchema>;

export const loadMessagingConfig = (env = process.env) => loadConfig(messagingConfigSchema, env);
