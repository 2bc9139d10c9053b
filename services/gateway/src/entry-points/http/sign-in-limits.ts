import type { Request, Response } from 'express';
import type { RequestRate } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import { createTokenBuckets, shareOf } from '../../domain/token-buckets';

const WINDOW_SECONDS = 15 * 60;

/**
 * Failed sign-ins (and invitation attempts) per account and per client address, in token
 * buckets: `n` failures at once, then one more each 15/n minutes. An account or address out of
 * attempts is refused before any password is checked, so a guesser learns nothing and costs no
 * hash. Per account caps a distributed guess at one password; per address caps one machine
 * trying many accounts. A correct password does not refill either bucket.
 */
export function createSignInLimits(options: {
  replicas: number;
  perAccount: number;
  perAddress: number;
}) {
  const buckets = createTokenBuckets();
  const rate = (failures: number): RequestRate =>
    shareOf({ perSecond: failures / WINDOW_SECONDS, burst: failures }, options.replicas);
  const account = rate(options.perAccount);
  const address = rate(options.perAddress);

  return {
    /** Throws 429 with Retry-After when the address, or the account when named, is out of attempts. */
    refuseWhenExhausted(req: Request, res: Response, email?: string): void {
      const checks = [
        { answer: buckets.peek(`ip:${req.ip}`, address), what: 'this address' },
        ...(email
          ? [{ answer: buckets.peek(`acct:${email}`, account), what: 'this account' }]
          : []),
      ];
      for (const { answer, what } of checks) {
        if (answer.allowed) continue;
        res.setHeader('Retry-After', String(answer.retryAfterSeconds));
        throw new AppError(
          'rate_limited',
          `Too many failed sign-ins for ${what}; retry after ${answer.retryAfterSeconds} s`,
        );
      }
    },

    countFailure(req: Request, email?: string): void {
      buckets.take(`ip:${req.ip}`, address);
      if (email) buckets.take(`acct:${email}`, account);
    },
  };
}

export type SignInLimits = ReturnType<typeof createSignInLimits>;
