import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@switchboard/service-kit';
import { isPlainPath, rawPathOf } from '../../domain/public-paths';

/**
 * Mounted before any route: a path that a parser would resolve to something else (`..`,
 * backslashes, encoded separators) is answered 404 as sent and never routed or forwarded.
 */
export function refuseUnplainPaths(req: Request, _res: Response, next: NextFunction): void {
  if (!isPlainPath(rawPathOf(req.originalUrl))) {
    throw new AppError('not_found', 'No such path');
  }
  next();
}
