import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { INTERNAL_SECRET_HEADER, OrgContextSchema, type OrgContext } from '@switchboard/contracts';
import { AppError } from '../errors';

/** Constant-time comparison that does not leak the expected value's length. */
export function secretsMatch(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Throws `forbidden` unless the request carries the cluster's internal secret. */
export function checkInternalSecret(req: { headers: IncomingHttpHeaders }, secret: string): void {
  const given = req.headers[INTERNAL_SECRET_HEADER];
  if (typeof given !== 'string' || given === '' || !secretsMatch(given, secret)) {
    throw new AppError('forbidden', 'This route is internal');
  }
}

/** Guards routes that only other processes of the cluster may call. */
export function requireInternalSecret(secret: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    try {
      checkInternalSecret(req, secret);
    } catch (error) {
      next(error);
      return;
    }
    next();
  };
}

/** The organization a request acts for, as the gateway stated it; trusted only behind the internal secret. */
export function orgContext(req: { headers: IncomingHttpHeaders }): OrgContext {
  const parsed = OrgContextSchema.safeParse(req.headers);
  if (!parsed.success) {
    throw new AppError('invalid_token', 'Invalid token');
  }
  return parsed.data;
}
