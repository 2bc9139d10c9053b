import type { CloudApiClient } from '../../outbound/cloud-api';
import type { ProviderFailure } from '../../outbound/provider-failure';
import { TokenBucket } from './token-bucket';

export interface RetryPolicy {
  /** Calls to the provider per send, the first included. */
  maxAttempts: number;
  /** Wait before the first retry; doubled each time, with jitter. */
  baseDelayMs: number;
  /** No retry starts later than this after the first call (bounds what the caller waits). */
  budgetMs: number;
}

export type DeliveryResult =
  | { ok: true; wamid: string; attempts: number }
  | { ok: false; failure: ProviderFailure; attempts: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One token bucket per phone number: the provider's throughput (80 messages/s by default, or the
 * number's own send rate; a changed rate starts a fresh bucket).
 */
export function createPacing(ratePerSecond: number, now?: () => number) {
  const buckets = new Map<string, { rate: number; bucket: TokenBucket }>();
  const bucketOf = (phoneNumberId: string, numberRate: number | undefined) => {
    const rate = numberRate ?? ratePerSecond;
    let held = buckets.get(phoneNumberId);
    if (!held || held.rate !== rate) {
      held = { rate, bucket: new TokenBucket(rate, rate, now) };
      buckets.set(phoneNumberId, held);
    }
    return held.bucket;
  };
  return {
    take(phoneNumberId: string, numberRate?: number): Promise<void> {
      return bucketOf(phoneNumberId, numberRate).take();
    },
    /** Takes the number's token now, or says how many milliseconds its turn is away. */
    tryTake(phoneNumberId: string, numberRate?: number): number {
      return bucketOf(phoneNumberId, numberRate).tryTake();
    },
  };
}
export type Pacing = ReturnType<typeof createPacing>;

/**
 * Sends one Cloud API message, paced by the number's token bucket, retrying throughput limits and
 * transient failures (5xx, timeouts) with exponential backoff inside the policy's bounds. A
 * refusal, an open breaker or a spent budget ends it with the last failure.
 */
export async function deliverToProvider(
  client: CloudApiClient,
  pacing: Pacing,
  phoneNumberId: string,
  body: Record<string, unknown>,
  policy: RetryPolicy,
  random: () => number = Math.random,
  numberRate?: number,
): Promise<DeliveryResult> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    await pacing.take(phoneNumberId, numberRate);
    const result = await client.sendMessage(body);
    if (result.ok) return { ok: true, wamid: result.data.wamid, attempts: attempt };
    const { failure } = result;
    const delay = policy.baseDelayMs * 2 ** (attempt - 1) * (0.5 + random() / 2);
    const giveUp =
      !failure.retryable ||
      attempt >= policy.maxAttempts ||
      client.isCircuitOpen() ||
      Date.now() - started + delay > policy.budgetMs;
    if (giveUp) return { ok: false, failure, attempts: attempt };
    await sleep(delay);
  }
}
