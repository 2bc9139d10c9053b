import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_OPERATIONS, INVALID_TOKEN_MESSAGE, REQUEST_ID_HEADER } from '@switchboard/contracts';
import {
  AppError,
  checkInput,
  errorBody,
  redactPath,
  type Logger,
  type ServiceMetrics,
} from '@switchboard/service-kit';
import type { TokenAuthenticator } from '../../domain/authenticate-token';
import type { OwnerService, ServiceProxy } from '../../outbound/service-proxy';
import type { RateLimits } from './rate-limits';
import { tokenAmong } from './authenticate';
import { EDGE_CHECKED_OPERATIONS } from './check-assignee';

/** The route label the express route of these requests has, so the metrics stay one series. */
const ROUTE = '/api/svc/:operation';
/** Bodies up to this size are read here; larger ones (and every unusual request) go to express. */
const MAX_FAST_BODY = 64 * 1024;
const OPERATION_PATH = /^\/api\/svc\/([A-Za-z]+)$/;
const JSON_TYPE = /^application\/json\s*(?:;\s*charset=utf-8\s*)?$/i;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

interface FastOperation {
  name: string;
  owner: OwnerService;
  method: string;
}

/** Public operations forwarded to their owners (not the gateway's own), by lowercased name. */
function fastOperations(): Map<string, FastOperation> {
  const operations = new Map<string, FastOperation>();
  for (const { name, owner, methods } of API_OPERATIONS.values()) {
    // An operation defined under one method only; anything else is express' to answer.
    if (owner !== 'gateway' && methods.length === 1 && !EDGE_CHECKED_OPERATIONS.has(name)) {
      operations.set(name.toLowerCase(), {
        name,
        owner: owner as OwnerService,
        method: methods[0]!.toUpperCase(),
      });
    }
  }
  return operations;
}

/** The client's address as express' `req.ip` gives it with `trust proxy` set to a hop count. */
function clientAddress(req: IncomingMessage, trustedHops: number): string | undefined {
  const socket = req.socket.remoteAddress;
  if (trustedHops === 0) return socket;
  const forwarded = req.headers['x-forwarded-for'];
  const chain = typeof forwarded === 'string' ? forwarded.split(',').map((a) => a.trim()) : [];
  const addresses = [socket, ...chain.reverse()];
  return addresses[Math.min(trustedHops, addresses.length - 1)];
}

function readBody(req: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= length) chunks.push(chunk);
    });
    req.once('end', () =>
      received === length
        ? resolve(Buffer.concat(chunks))
        : reject(new AppError('malformed_json', 'Request was aborted')),
    );
    req.once('error', () => reject(new AppError('malformed_json', 'Request was aborted')));
  });
}

/**
 * The hot path of the public API, answered on node:http before express: an operation forwarded
 * to its owner, called with its documented method, a JSON body of known length (POST) or a flat
 * query (GET). It does what express' chain does for such a request — request id and log line,
 * metrics under the route's label, token and rate limits, input that can be stored, the error
 * envelope — and hands anything else (other paths, methods, content types, bracketed queries,
 * large or chunked bodies) to express, so the rare cases keep one implementation.
 */
export function createFastApiPath(deps: {
  authenticator: TokenAuthenticator;
  proxy: ServiceProxy;
  limits: RateLimits;
  logger: Logger;
  metrics: ServiceMetrics;
  trustedHops: number;
}) {
  const operations = fastOperations();

  function sendError(res: ServerResponse, error: AppError): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.statusCode = error.httpStatus;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(errorBody(error)));
  }

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    operation: FastOperation,
    params: URLSearchParams,
    requestId: string,
  ): Promise<void> {
    let body: Record<string, unknown> | undefined;
    if (req.method === 'POST') {
      const raw = await readBody(req, Number(req.headers['content-length']));
      let parsed: unknown;
      try {
        parsed = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
      } catch {
        throw new AppError('malformed_json', 'Request body is not valid JSON');
      }
      // express.json's strict mode: only an object or an array is a JSON body.
      if (typeof parsed !== 'object' || parsed === null) {
        throw new AppError('malformed_json', 'Request body is not valid JSON');
      }
      if (Array.isArray(parsed)) {
        throw new AppError('validation_failed', 'body: must be a JSON object, not an array');
      }
      body = parsed as Record<string, unknown>;
    }
    checkInput(Object.fromEntries(params), 'query');
    if (body) checkInput(body, 'body');

    const client = { ip: clientAddress(req, deps.trustedHops) };
    deps.limits.refuseAfterFailures(client, res);
    const token = tokenAmong(req.headers.authorization, body?.token, params.get('token'));
    const found = await deps.authenticator.authenticate(token);
    if (!found) {
      deps.limits.countFailure(client);
      throw new AppError('invalid_token', INVALID_TOKEN_MESSAGE);
    }
    deps.limits.api(found.tokenHash, found.organization, res);
    await deps.proxy.forwardRequest(
      operation.owner,
      { method: req.method!, url: req.url!, headers: req.headers, body, stream: req, requestId },
      res,
      `/api/svc/${operation.name}`,
      found.organization,
    );
  }

  /** Answers the request and returns true, or returns false to leave it to express. */
  return function fastApiPath(req: IncomingMessage, res: ServerResponse): boolean {
    const target = req.url ?? '';
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = queryAt === -1 ? '' : target.slice(queryAt + 1);
    const match = OPERATION_PATH.exec(path);
    if (!match) return false;
    const operation = operations.get(match[1]!.toLowerCase());
    if (!operation || operation.method !== req.method) return false;
    // A browser's session cookie (and its CSRF check) is express' to authenticate.
    if (req.headers.cookie !== undefined && req.headers.authorization === undefined) return false;
    // Nested or repeated query keys (`custom[city]=Rome`, `a=1&a=2`) are express' to parse.
    if (/[[\]]|%5b|%5d/i.test(query)) return false;
    const params = new URLSearchParams(query);
    const keys = [...params.keys()];
    if (new Set(keys).size !== keys.length) return false;
    if (req.method === 'POST') {
      const length = Number(req.headers['content-length']);
      if (
        !JSON_TYPE.test(req.headers['content-type'] ?? '') ||
        req.headers['transfer-encoding'] !== undefined ||
        req.headers['content-encoding'] !== undefined ||
        !Number.isInteger(length) ||
        length < 0 ||
        length > MAX_FAST_BODY
      ) {
        return false;
      }
    } else if (
      req.headers['transfer-encoding'] !== undefined ||
      Number(req.headers['content-length'] ?? 0) > 0
    ) {
      return false;
    }

    const incoming = req.headers[REQUEST_ID_HEADER];
    const requestId =
      typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    const log = deps.logger.child({ requestId });
    const started = process.hrtime.bigint();
    res.setHeader(REQUEST_ID_HEADER, requestId);
    let errorCode: string | undefined;
    res.once('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const method = req.method!;
      deps.metrics.observeHttpRequest(
        { method, route: ROUTE, status: res.statusCode },
        durationMs / 1000,
      );
      if (errorCode) deps.metrics.countHttpError({ method, route: ROUTE, code: errorCode });
      log.info({ method, path: redactPath(path), status: res.statusCode, durationMs }, 'request');
    });
    handle(req, res, operation, params, requestId).catch((error: unknown) => {
      const known =
        error instanceof AppError
          ? error
          : (log.error({ err: error }, 'unhandled error'),
            new AppError('internal_error', 'Internal error'));
      errorCode = known.code;
      sendError(res, known);
    });
    return true;
  };
}
