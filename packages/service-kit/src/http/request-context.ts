import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { REQUEST_ID_HEADER } from '@switchboard/contracts';
import type { Logger } from '../logger';
import { redactPath } from '../span-redaction';

export function requestLogger(res: Response): Logger {
  return res.locals.logger as Logger;
}

export function requestId(res: Response): string {
  return res.locals.requestId as string;
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives each request its id and a logger that carries it, and logs the request when answered. */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.header(REQUEST_ID_HEADER);
    const id = incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    res.locals.requestId = id;
    res.locals.logger = logger.child({ requestId: id });
    res.setHeader(REQUEST_ID_HEADER, id);
    res.on('finish', () => {
      if (req.path === '/livez' || req.path === '/readyz') return;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      requestLogger(res).info(
        { method: req.method, path: redactPath(req.path), status: res.statusCode, durationMs },
        'request',
      );
    });
    next();
  };
}
