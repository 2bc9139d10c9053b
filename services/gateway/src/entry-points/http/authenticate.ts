import type { NextFunction, Request, Response } from 'express';
import { INVALID_TOKEN_MESSAGE } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { Organization, TokenAuthenticator } from '../../domain/authenticate-token';
import { formTokenOf, readMultipartForm } from './multipart-form';
import type { RateLimits } from './rate-limits';

/**
 * The published API authentication: `token` in the query (GET) or the body (POST, PUT, DELETE); a bearer header works too.
 * A streamed multipart form's token is read as it arrives (`formTokenOf`), after these.
 */
export function tokenFrom(req: Request): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  return tokenAmong(req.header('authorization'), body?.token, req.query.token);
}

/** The first token given: the bearer header's, then the body's, then the query's. */
export function tokenAmong(
  authorization: string | undefined,
  bodyToken: unknown,
  queryToken: unknown,
): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  return [bearer, bodyToken, queryToken].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
}

export function requireToken(authenticator: TokenAuthenticator, limits: RateLimits) {
  return async (req: Request, res: Response, next: NextFunction) => {
    limits.refuseAfterFailures(req, res);
    await readMultipartForm(req, res);
    const found = await authenticator.authenticate(tokenFrom(req) ?? (await formTokenOf(req)));
    if (!found) {
      limits.countFailure(req);
      throw new AppError('invalid_token', INVALID_TOKEN_MESSAGE);
    }
    limits.api(found.tokenHash, found.organization, res);
    res.locals.organization = found.organization;
    next();
  };
}

export function authenticatedOrganization(res: Response): Organization {
  return res.locals.organization as Organization;
}
