import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER } from '@switchboard/contracts';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { ServiceMetrics } from '../metrics';
import { redactPath } from '../span-redaction';
import { errorBody } from './error-middleware';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export interface FastRequestContext {
  requestId: string;
  logger: Logger;
}

/**
 * Answers one request on node:http, for a hot path served before express (a `preRoute`), with
 * what express' chain gives every request: the request id (taken from the caller when well formed)
 * on the answer and on a child logger, the log line once answered, the HTTP metrics under the
 * route's label (the same series as the express route of such requests), and the error envelope
 * for whatever `handle` throws. An answer already begun when it throws is cut off.
 */
export function answerBeforeExpress(
  deps: { logger: Logger; metrics: ServiceMetrics },
  req: IncomingMessage,
  res: ServerResponse,
  labels: { route: string; path: string },
  handle: (context: FastRequestContext) => Promise<void>,
): void {
  const incoming = req.headers[REQUEST_ID_HEADER];
  const requestId =
    typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
  // A child logger only when something is logged (below `info`, a request that succeeds logs nothing).
  let child: Logger | undefined;
  const logger = () => (child ??= deps.logger.child({ requestId }));
  const started = process.hrtime.bigint();
  res.setHeader(REQUEST_ID_HEADER, requestId);
  let errorCode: string | undefined;
  res.once('finish', () => {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const method = req.method!;
    deps.metrics.observeHttpRequest(
      { method, route: labels.route, status: res.statusCode },
      durationMs / 1000,
    );
    if (errorCode) deps.metrics.countHttpError({ method, route: labels.route, code: errorCode });
    if (deps.logger.isLevelEnabled('info')) {
      logger().info(
        { method, path: redactPath(labels.path), status: res.statusCode, durationMs },
        'request',
      );
    }
  });
  const context: FastRequestContext = {
    requestId,
    get logger() {
      return logger();
    },
  };
  handle(context).catch((error: unknown) => {
    const known = answerableError(error, logger);
    errorCode = known.code;
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    endJson(res, known.httpStatus, JSON.stringify(errorBody(known)));
  });
}

/**
 * An error as the API answers it: an AppError as it is; anything else logged (on the logger
 * `loggerOf` gives, asked for only then), and answered as an internal error.
 */
export function answerableError(error: unknown, loggerOf: () => Logger): AppError {
  if (error instanceof AppError) return error;
  loggerOf().error({ err: error }, 'unhandled error');
  return new AppError('internal_error', 'Internal error');
}

/** Ends a fast path's answer: `status` with `json`, a body already serialized. */
export function endJson(res: ServerResponse, status: number, json: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(json);
}

/**
 * The body of a request that stated its length (`content-length`, already checked against the
 * route's limit), whole. A request that ends short of it, or fails, was aborted.
 */
export function readStatedBody(req: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= length) chunks.push(chunk);
    });
    req.once('end', () =>
      received === length
        ? resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length))
        : reject(new AppError('malformed_json', 'Request was aborted')),
    );
    req.once('error', () => reject(new AppError('malformed_json', 'Request was aborted')));
  });
}

/** The stated length of a request's body, or undefined when it is chunked, encoded or unstated. */
export function statedBodyLength(req: IncomingMessage): number | undefined {
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  if (req.headers['content-encoding'] !== undefined) return undefined;
  const stated = req.headers['content-length'];
  if (stated === undefined) return undefined;
  const length = Number(stated);
  return Number.isInteger(length) && length >= 0 ? length : undefined;
}

const BYTE_UNITS: Record<string, number> = { b: 1, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30 };

/**
 * A body limit as express' body parsers read it (`'100kb'`, `'3mb'`, `'512'`: units of 1,024), in
 * bytes; undefined when it is not one.
 */
export function byteSize(limit: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (!match) return undefined;
  return Math.floor(Number(match[1]) * BYTE_UNITS[(match[2] ?? 'b').toLowerCase()]!);
}
