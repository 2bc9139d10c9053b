import { z } from 'zod';
import type { SimulatorOptions } from './simulator-options';
import type { LogLevel } from './logger';
import { ChannelRegistrationSchema } from './state/channel';

const integerList = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  )
  .pipe(
    z.array(z.string().regex(/^\d+$/, 'must be a comma list of milliseconds').transform(Number)),
  );

const flag = z
  .enum(['true', 'false', '1', '0', 'on', 'off', 'yes', 'no', ''])
  .default('false')
  .transform((value) => ['true', '1', 'on', 'yes'].includes(value));

const channelsJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of channels' });
      return z.NEVER;
    }
  })
  .pipe(z.array(ChannelRegistrationSchema));

/** The simulator's environment, read once at start; an invalid value stops it before it listens. */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Bearer tokens accepted for every number, besides each channel's own (comma list). */
  SIM_ACCESS_TOKEN: z
    .string()
    .default('')
    .transform((text) =>
      text
        .split(',')
        .map((token) => token.trim())
        .filter((token) => token !== ''),
    ),
  /** Waits before sent, delivered, read (each after the previous); fewer entries stop earlier. */
  SIM_STATUS_DELAYS_MS: integerList.default([100, 200, 300]),
  SIM_TEMPLATE_REVIEW_DELAY_MS: z.coerce.number().int().min(0).default(500),
  SIM_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(5000),
  SIM_WEBHOOK_RETRY_DELAYS_MS: integerList.default([250, 1000, 4000]),
  /** Messages per second per number before 130429; 0 turns the limit off. */
  SIM_THROUGHPUT_PER_SECOND: z.coerce.number().min(0).default(80),
  SIM_ENFORCE_SERVICE_WINDOW: flag,
  SIM_PAIR_RATE_LIMIT: flag,
  SIM_DUPLICATE_STATUSES: flag,
  SIM_REORDER_STATUSES: flag,
  SIM_PUBLIC_URL: z.url().optional(),
  /** Channels known from the start: a JSON array of `POST /sim/channels` bodies. */
  SIM_CHANNELS: channelsJson.optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

export interface SimulatorConfig {
  port: number;
  host: string;
  logLevel: LogLevel;
  simulator: Omit<SimulatorOptions, 'logger'>;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): SimulatorConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new Error(`invalid provider simulator configuration: ${problems}`);
  }
  const e = parsed.data;
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    simulator: {
      accessTokens: e.SIM_ACCESS_TOKEN,
      statusDelaysMs: e.SIM_STATUS_DELAYS_MS,
      templateReviewDelayMs: e.SIM_TEMPLATE_REVIEW_DELAY_MS,
      webhookTimeoutMs: e.SIM_WEBHOOK_TIMEOUT_MS,
      webhookRetryDelaysMs: e.SIM_WEBHOOK_RETRY_DELAYS_MS,
      throughputPerSecond: e.SIM_THROUGHPUT_PER_SECOND,
      enforceServiceWindow: e.SIM_ENFORCE_SERVICE_WINDOW,
      pairRateLimit: e.SIM_PAIR_RATE_LIMIT,
      duplicateStatuses: e.SIM_DUPLICATE_STATUSES,
      reorderStatuses: e.SIM_REORDER_STATUSES,
      ...(e.SIM_PUBLIC_URL !== undefined && { publicUrl: e.SIM_PUBLIC_URL }),
      ...(e.SIM_CHANNELS !== undefined && { channels: e.SIM_CHANNELS }),
    },
  });
}
