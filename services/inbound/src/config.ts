import { z } from 'zod';
import { baseConfigShape, loadConfig, portSchema } from '@switchboard/service-kit';

export const inboundConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8085),
  MESSAGING_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** Meta sends webhook batches of up to 3 MB (as the Cloud API documents it). */
  INBOUND_BODY_LIMIT: z.string().default('3mb'),
  /** How long a channel looked up from messaging is used before it is asked again. */
  CHANNEL_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  /** How often stored events that were not published yet are published again. */
  RELAY_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),
  /**
   * How long an event stored unpublished (the broker down, a publish refused or slow to confirm)
   * waits before the relay publishes it: a publish only slow to confirm has arrived by then.
   */
  RELAY_GRACE_MS: z.coerce.number().int().min(0).default(5_000),
  INBOUND_RETENTION_DAYS: z.coerce.number().positive().default(7),
});

export type InboundConfig = z.infer<typeof inboundConfigSchema>;

export const loadInboundConfig = (env = process.env) => loadConfig(inboundConfigSchema, env);
