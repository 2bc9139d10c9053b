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

/** Guards routes that only other processes of the cluster may call. */
export function requireInternalSecret(secret: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const given = req.header(INTERNAL_SECRET_HEADER);
    if (!given || !secretsMatch(given, secret)) {
      next(new AppError('forbidden', 'This route is internal'));
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
