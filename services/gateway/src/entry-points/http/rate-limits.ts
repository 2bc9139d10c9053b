import type { NextFunction, Request, Response } from 'express';
import { PLAN_REQUEST_RATES, type RequestRate } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { Organization } from '../../domain/authenticate-token';
import { createTokenBuckets, shareOf, type BucketAnswer } from '../../domain/token-buckets';

/** Where the limits' headers go: an express answer or a plain node:http one. */
type HeaderSink = { setHeader(name: string, value: string): unknown };
/** Whose attempts are counted: the client address (express' `req.ip`, or the fast path's). */
type Client = { ip?: string | undefined };

export interface RateLimitOptions {
  /** Replicas sharing the deployment-wide rates; each enforces its share. */
  replicas: number;
  /** Multiplies every API rate of the plans (load tests, a deployment's own tuning). */
  apiRateScale: number;
  /** The admin API, per client address. */
  admin: RequestRate;
  /** Failed token attempts (API or admin), per client address. */
  failedAuth: RequestRate;
}

/**
 * The gateway's rate limits: API requests per token and per organization (by plan),
 * admin requests and failed token attempts per client address. 429 `rate_limited` with
 * `Retry-After` and the RateLimit / RateLimit-Policy fields of draft-ietf-httpapi-ratelimit-headers.
 */
export function createRateLimits(options: RateLimitOptions) {
  const buckets = createTokenBuckets();
  const share = (rate: RequestRate) =>
    shareOf(
      {
        perSecond: rate.perSecond * options.apiRateScale,
        burst: rate.burst * options.apiRateScale,
      },
      options.replicas,
    );
  // Per plan, computed once: the per-request path only looks them up.
  const apiRates = new Map(
    Object.entries(PLAN_REQUEST_RATES).map(([plan, rates]) => {
      const token = share(rates.token);
      const organization = share(rates.organization);
      const policy = `${policyItem('token', token)}, ${policyItem('organization', organization)}`;
      return [plan, { token, organization, policy }];
    }),
  );
  const admin = shareOf(options.admin, options.replicas);
  const failedAuth = shareOf(options.failedAuth, options.replicas);
  const adminPolicy = policyItem('admin', admin);

  return {
    /** After authentication: the token's and then the organization's bucket. */
    api(tokenKey: string, organization: Organization, res: HeaderSink): void {
      const rates = apiRates.get(organization.plan)!;
      const now = Date.now();
      const token = buckets.take(`t:${tokenKey}`, rates.token, now);
      // A request the token's bucket refused takes nothing from the organization's.
      const org = token.allowed
        ? buckets.take(`o:${organization.company_id}`, rates.organization, now)
        : buckets.peek(`o:${organization.company_id}`, rates.organization, now);
      res.setHeader('RateLimit-Policy', rates.policy);
      res.setHeader('RateLimit', `${limitItem('token', token)}, ${limitItem('organization', org)}`);
      if (!token.allowed) refuse(res, token, 'this API token');
      if (!org.allowed) refuse(res, org, 'this organization');
    },

    /** Every admin request, per client address. */
    admin(req: Request, res: Response, next: NextFunction): void {
      const answer = buckets.take(`a:${req.ip}`, admin);
      res.setHeader('RateLimit-Policy', adminPolicy);
      res.setHeader('RateLimit', limitItem('admin', answer));
      if (!answer.allowed) refuse(res, answer, 'the admin API from this address');
      next();
    },

    /** Before a token is looked up: an address that failed too often is refused unread. */
    refuseAfterFailures(req: Client, res: HeaderSink): void {
      const answer = buckets.peek(`f:${req.ip}`, failedAuth);
      if (!answer.allowed) refuse(res, answer, 'failed token attempts from this address');
    },

    /** A token that matched nothing counts against its address. */
    countFailure(req: Client): void {
      buckets.take(`f:${req.ip}`, failedAuth);
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;

function refuse(res: HeaderSink, answer: BucketAnswer, what: string): never {
  res.setHeader('Retry-After', String(answer.retryAfterSeconds));
  throw new AppError(
    'rate_limited',
    `Too many requests for ${what}; retry after ${answer.retryAfterSeconds} s`,
  );
}

/** A policy item: `q` requests per window of `w` seconds (the time an empty bucket takes to refill). */
function policyItem(name: string, rate: RequestRate): string {
  return `"${name}";q=${rate.burst};w=${Math.max(1, Math.ceil(rate.burst / rate.perSecond))}`;
}

function limitItem(name: string, answer: BucketAnswer): string {
  return `"${name}";r=${answer.remaining};t=${answer.resetSeconds}`;
}
