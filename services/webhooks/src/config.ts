import { z } from 'zod';
import { WEBHOOK_RETRY_STEPS } from '@switchboard/contracts';
import {
  baseConfigShape,
  encryptionKeySchema,
  loadConfig,
  portSchema,
} from '@switchboard/service-kit';

const positiveInt = (defaultValue: number) =>
  z.coerce.number().int().positive().default(defaultValue);

/** `10,30,60`: seconds before attempts 2, 3 and 4, one per retry queue; fractions allowed. */
const retryDelaysSchema = z
  .string()
  .default('10,30,60')
  .transform((text, ctx) => {
    const seconds = text.split(',').map((part) => Number(part.trim()));
    if (
      seconds.length !== WEBHOOK_RETRY_STEPS.length ||
      seconds.some((value) => !Number.isFinite(value) || value <= 0 || value > 86_400)
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `must be ${WEBHOOK_RETRY_STEPS.length} comma-separated positive numbers of seconds`,
      });
      return z.NEVER;
    }
    return seconds.map((value) => Math.round(value * 1000));
  });

export const webhooksConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8084),
  /** Waits before attempts 2, 3, 4 (ms after parsing); each is the TTL of one retry queue. */
  WEBHOOK_RETRY_DELAYS: retryDelaysSchema,
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /**
   * Hard wall-clock limit of one attempt, from connecting to the last byte read: the spec's 10 s
   * for every webhook request, the test call's too (the gateway waits 30 s for it).
   */
  WEBHOOK_TIMEOUT_MS: positiveInt(10_000),
  /** Requests in flight to one endpoint at a time. */
  WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt(10),
  /** Unacked retries (and attempts put off) this process holds: their attempts in flight. */
  WEBHOOK_DELIVERY_PREFETCH: positiveInt(200),
  /**
   * Unacked events this process holds; an event is held while its first attempts run, so this
   * times the webhooks per event bounds the first attempts in flight (as many as the delivery
   * prefetch allowed when an event has one webhook, the common case).
   */
  WEBHOOK_EVENT_PREFETCH: positiveInt(200),
  /** Per-endpoint breaker: opens at this failure percentage over at least BREAKER_VOLUME attempts. */
  WEBHOOK_BREAKER_ERROR_PERCENT: z.coerce.number().int().min(1).max(100).default(50),
  WEBHOOK_BREAKER_VOLUME: positiveInt(10),
  WEBHOOK_BREAKER_RESET_MS: positiveInt(30_000),
  /** An attempt put off this many times (open breaker, busy endpoint) is made anyway. */
  WEBHOOK_MAX_POSTPONEMENTS: z.coerce.number().int().min(0).default(30),
  /**
   * How long a webhook read on the delivery path is reused. This process's own changes apply at
   * once; one made through another replica (a pause, a new URL) within this time.
   */
  WEBHOOK_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1_000),
  /** Delivery logs (and deliveries) older than this are removed by a periodic cleanup. */
  WEBHOOK_LOG_RETENTION_DAYS: positiveInt(30),
  /** The former single key of webhook secrets (32 bytes, base64): opens what it sealed; see SECRET_ENCRYPTION_KEYS. */
  WEBHOOK_SECRET_ENCRYPTION_KEY: encryptionKeySchema,
});

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;

export const loadWebhooksConfig = (env = process.env) => loadConfig(webhooksConfigSchema, env);
