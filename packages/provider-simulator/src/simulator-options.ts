import type { ChannelRegistration } from './state/channel';
import type { Logger } from './logger';
import { createLogger } from './logger';

export interface SimulatorOptions {
  /** Bearer tokens accepted for every phone number and WABA (besides each channel's own token). */
  accessTokens?: string[];
  /** Channels known from the start; more can be registered with `POST /sim/channels`. */
  channels?: ChannelRegistration[];
  /**
   * Waits before the `sent`, `delivered` and `read` webhooks, each after the previous one
   * (default 100, 200, 300 ms). Fewer entries stop the sequence early: `[100]` only sends `sent`.
   */
  statusDelaysMs?: number[];
  /** Wait between a template's creation and its review decision (default 500 ms). */
  templateReviewDelayMs?: number;
  /** Per-attempt timeout of a webhook POST (default 5000 ms). */
  webhookTimeoutMs?: number;
  /** Waits before each retry of a webhook not answered 200 (default 250, 1000, 4000 ms). */
  webhookRetryDelaysMs?: number[];
  /** Messages per second per phone number before 130429 (default 80, Meta's default; 0 = no limit). */
  throughputPerSecond?: number;
  /** Non-template messages outside the 24 h window fail asynchronously with 131047 (default off). */
  enforceServiceWindow?: boolean;
  /** Meta's pair rate limit: 45 burst, then one per 6 s to the same user, else 131056 (default off). */
  pairRateLimit?: boolean;
  /** Post every status webhook twice (default off). */
  duplicateStatuses?: boolean;
  /** Post a message's status webhooks in reverse order, after the last delay (default off). */
  reorderStatuses?: boolean;
  /** Base URL put in media download URLs; defaults to the address the request came in on. */
  publicUrl?: string;
  /** How long a media download URL stays valid (default 5 minutes, like Meta). */
  mediaUrlTtlMs?: number;
  logger?: Logger;
}

export type ResolvedOptions = Required<Omit<SimulatorOptions, 'publicUrl' | 'channels'>> & {
  publicUrl: string | undefined;
  channels: ChannelRegistration[];
};

export function resolveOptions(options: SimulatorOptions): ResolvedOptions {
  return {
    accessTokens: options.accessTokens ?? [],
    channels: options.channels ?? [],
    statusDelaysMs: options.statusDelaysMs ?? [100, 200, 300],
    templateReviewDelayMs: options.templateReviewDelayMs ?? 500,
    webhookTimeoutMs: options.webhookTimeoutMs ?? 5000,
    webhookRetryDelaysMs: options.webhookRetryDelaysMs ?? [250, 1000, 4000],
    throughputPerSecond: options.throughputPerSecond ?? 80,
    enforceServiceWindow: options.enforceServiceWindow ?? false,
    pairRateLimit: options.pairRateLimit ?? false,
    duplicateStatuses: options.duplicateStatuses ?? false,
    reorderStatuses: options.reorderStatuses ?? false,
    publicUrl: options.publicUrl,
    mediaUrlTtlMs: options.mediaUrlTtlMs ?? 5 * 60_000,
    logger: options.logger ?? createLogger('info'),
  };
}
