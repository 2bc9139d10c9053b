import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { CSRF_HEADER } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { TokenAuthenticator } from '../../domain/authenticate-token';
import type { SignedIn, Sessions } from '../../domain/sessions';
import type { Caller } from '../../domain/users';
import { requireToken, tokenFrom } from './authenticate';
import type { RateLimits } from './rate-limits';
import type { SessionCookie } from './session-cookie';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function sameText(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A cookie comes with every request the browser makes to us, whoever's page asked, so a write
 * made with the session cookie must also carry the session's CSRF token in a header. A page of
 * another site cannot read the token, nor set a custom header on a cross-site request without a
 * CORS preflight we never grant. SameSite=Lax already keeps the cookie off cross-site posts in
 * current browsers; the token also covers sibling subdomains (same site for SameSite) and
 * browsers without SameSite, and does not depend on an Origin header proxies may drop.
 */
export function requireCsrfToken(req: Request, signedIn: SignedIn): void {
  if (SAFE_METHODS.has(req.method)) return;
  const given = req.header(CSRF_HEADER);
  if (!given || !sameText(given, signedIn.session.csrf_token)) {
    throw new AppError(
      'forbidden',
      `A write made with the session cookie must send the session's CSRF token in the X-CSRF-Token header (from the sign-in answer or GET /auth/session)`,
    );
  }
}

export interface CallerAuthDeps {
  authenticator: TokenAuthenticator;
  sessions: Sessions;
  cookie: SessionCookie;
  limits: RateLimits;
}

/** The signed-in session a request's cookie names, or 401 `not_signed_in`. */
export async function signedInSession(
  req: Request,
  deps: Pick<CallerAuthDeps, 'sessions' | 'cookie' | 'limits'>,
): Promise<SignedIn> {
  const secret = deps.cookie.read(req);
  deps.limits.refuseAfterFailures(req, req.res!);
  const signedIn = secret ? await deps.sessions.resolve(secret) : null;
  if (!signedIn) {
    if (secret) deps.limits.countFailure(req);
    throw new AppError('not_signed_in', 'Not signed in, or the session has ended: sign in again');
  }
  return signedIn;
}

/**
 * An API token when the request carries one (as every API client does); otherwise the session
 * cookie of a signed-in user, with the CSRF check for writes. Either way the organization's rate
 * limits apply: a session spends from a bucket of its user's, as a token does from its own.
 */
export function requireCaller(deps: CallerAuthDeps) {
  const byToken = requireToken(deps.authenticator, deps.limits);
  return async (req: Request, res: Response, next: NextFunction) => {
    if (tokenFrom(req) !== undefined || deps.cookie.read(req) === undefined) {
      res.locals.caller = { kind: 'token' } satisfies Caller;
      return byToken(req, res, next);
    }
    const signedIn = await signedInSession(req, deps);
    requireCsrfToken(req, signedIn);
    deps.limits.api(`u:${signedIn.user.user_id}`, signedIn.organization, res);
    res.locals.organization = signedIn.organization;
    res.locals.caller = {
      kind: 'user',
      user: signedIn.user,
      sessionHash: signedIn.sessionHash,
    } satisfies Caller;
    res.locals.signedIn = signedIn;
    next();
  };
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}
