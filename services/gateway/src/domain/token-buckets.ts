import type { RequestRate } from '@switchboard/contracts';

/** One bucket's answer: whether the request may go, and what the RateLimit fields report. */
export interface BucketAnswer {
  allowed: boolean;
  /** Whole requests left now. */
  remaining: number;
  /** Seconds until the bucket is full again (the RateLimit field's `t`). */
  resetSeconds: number;
  /** Seconds until one request is allowed again (Retry-After); 0 when allowed. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
  rate: RequestRate;
}

/** What the bucket holds at `now`, refilled at `rate` since its last use (uncapped). */
const tokensAt = (bucket: Bucket, rate: RequestRate, now: number) =>
  bucket.tokens + ((now - bucket.at) / 1000) * rate.perSecond;

function answerOf(tokens: number, rate: RequestRate, allowed: boolean, cost: number): BucketAnswer {
  return {
    allowed,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((rate.burst - tokens) / rate.perSecond),
    retryAfterSeconds: allowed ? 0 : Math.ceil((cost - tokens) / rate.perSecond),
  };
}

/** Past this many keys, buckets that have refilled completely are dropped (they hold no state). */
const SWEEP_AT = 50_000;

/**
 * In-memory token buckets, one per key. Nothing is shared between replicas or written to the
 * database: each replica enforces its share of a rate (see `shareOf`), so that a request costs
 * a map lookup and a few arithmetic operations.
 */
export function createTokenBuckets() {
  const buckets = new Map<string, Bucket>();

  function sweep(now: number): void {
    for (const [key, bucket] of buckets) {
      if (tokensAt(bucket, bucket.rate, now) >= bucket.rate.burst) buckets.delete(key);
    }
  }

  return {
    /** Takes `cost` from the key's bucket when it holds that much. */
    take(key: string, rate: RequestRate, now = Date.now(), cost = 1): BucketAnswer {
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= SWEEP_AT) sweep(now);
        bucket = { tokens: rate.burst, at: now, rate };
        buckets.set(key, bucket);
      } else {
        bucket.tokens = Math.min(rate.burst, tokensAt(bucket, rate, now));
        bucket.at = now;
        bucket.rate = rate;
      }
      const allowed = bucket.tokens >= cost;
      if (allowed) bucket.tokens -= cost;
      return answerOf(bucket.tokens, rate, allowed, cost);
    },
    /** Whether the key's bucket holds at least one request, without taking it. */
    peek(key: string, rate: RequestRate, now = Date.now()): BucketAnswer {
      const bucket = buckets.get(key);
      const tokens = bucket ? Math.min(rate.burst, tokensAt(bucket, rate, now)) : rate.burst;
      return answerOf(tokens, rate, tokens >= 1, 1);
    },
    get size() {
      return buckets.size;
    },
  };
}

export type TokenBuckets = ReturnType<typeof createTokenBuckets>;

/** A replica's share of a deployment-wide rate: the rate and burst divided by the replica count. */
export function shareOf(rate: RequestRate, replicas: number): RequestRate {
  return {
    perSecond: rate.perSecond / replicas,
    burst: Math.max(1, Math.floor(rate.burst / replicas)),
  };
}
