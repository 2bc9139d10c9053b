import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  API_OPERATIONS,
  INVALID_TOKEN_MESSAGE,
  PROVIDER_SIGNATURE_HEADER,
  RECEIVE_BATCH_MAX_WEBHOOK_BYTES,
} from '@switchboard/contracts';
import {
  AppError,
  answerBeforeExpress,
  checkInput,
  readStatedBody,
  statedBodyLength,
  type Logger,
  type ServiceMetrics,
  endJson,
} from '@switchboard/service-kit';
import type { TokenAuthenticator } from '../../domain/authenticate-token';
import type { InboundWebhookBatches } from '../../outbound/inbound-webhook-batches';
import type { OwnerService, ServiceProxy } from '../../outbound/service-proxy';
import type { RateLimits } from './rate-limits';
import { tokenAmong } from './authenticate';
import { EDGE_CHECKED_OPERATIONS } from './check-assignee';

/** The route labels the express routes of these requests have, so the metrics stay one series. */
const ROUTE = '/api/svc/:operation';
const WEBHOOK_ROUTE = '/webhook/svc/receive/:token';
/** The provider's webhook path as inbound routes it, with a token of plain characters only. */
const WEBHOOK_PATH = /^\/webhook\/svc\/receive\/([A-Za-z0-9_-]{1,200})$/;
/** Bodies up to this size are read here; larger ones (and every unusual request) go to express. */
const MAX_FAST_BODY = 64 * 1024;
/** A webhook up to this size is read whole and sent on in a batch rather than piped through. */
const SHORT_WEBHOOK_BYTES = RECEIVE_BATCH_MAX_WEBHOOK_BYTES;
const OPERATION_PATH = /^\/api\/svc\/([A-Za-z]+)$/;
const JSON_TYPE = /^application\/json\s*(?:;\s*charset=utf-8\s*)?$/i;

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

/**
 * The hot path of the public API, answered on node:http before express: an operation forwarded
 * to its owner, called with its documented method, a JSON body of known length (POST) or a flat
 * query (GET). It does what express' chain does for such a request — request id and log line,
 * metrics under the route's label, token and rate limits, input that can be stored, the error
 * envelope — and hands anything else (other paths, methods, content types, bracketed queries,
 * large or chunked bodies) to express, so the rare cases keep one implementation. The provider's
 * webhooks (three for each message sent) take the same way to inbound.
 */
export function createFastApiPath(deps: {
  authenticator: TokenAuthenticator;
  proxy: ServiceProxy;
  webhooks: InboundWebhookBatches;
  limits: RateLimits;
  logger: Logger;
  metrics: ServiceMetrics;
  trustedHops: number;
}) {
  const operations = fastOperations();

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    operation: FastOperation,
    params: URLSearchParams,
    requestId: string,
  ): Promise<void> {
    let body: Record<string, unknown> | undefined;
    if (req.method === 'POST') {
      const raw = await readStatedBody(req, Number(req.headers['content-length']));
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

  /**
   * The provider's signed webhook, unauthenticated here (inbound checks the signature over the
   * raw bytes), never parsed. A short one (every status) is read whole and goes to inbound in a
   * batch with the webhooks that arrive beside it; its answer is the one inbound gave it once
   * stored, so nothing is acknowledged before it is kept. A longer one is streamed as it arrives,
   * on its own. Only a body of stated length; a chunked or encoded one is express' to forward.
   */
  function forwardWebhook(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    token: string,
  ): boolean {
    const length = statedBodyLength(req);
    if (length === undefined) return false;
    const batched = length > 0 && length <= SHORT_WEBHOOK_BYTES;
    answerBeforeExpress(deps, req, res, { route: WEBHOOK_ROUTE, path }, async ({ requestId }) => {
      if (batched) {
        const signature = req.headers[PROVIDER_SIGNATURE_HEADER];
        const { status, body } = await deps.webhooks.receive(
          token,
          typeof signature === 'string' ? signature : undefined,
          await readStatedBody(req, length),
        );
        endJson(res, status, JSON.stringify(body));
        return;
      }
      await deps.proxy.forwardRequest(
        'inbound',
        {
          method: 'POST',
          url: req.url!,
          headers: req.headers,
          body: undefined,
          stream: req,
          requestId,
        },
        res,
        path,
      );
    });
    return true;
  }

  /** Answers the request and returns true, or returns false to leave it to express. */
  return function fastApiPath(req: IncomingMessage, res: ServerResponse): boolean {
    const target = req.url ?? '';
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = queryAt === -1 ? '' : target.slice(queryAt + 1);
    if (req.method === 'POST') {
      const webhookToken = WEBHOOK_PATH.exec(path)?.[1];
      if (webhookToken !== undefined) return forwardWebhook(req, res, path, webhookToken);
    }
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

    answerBeforeExpress(deps, req, res, { route: ROUTE, path }, ({ requestId }) =>
      handle(req, res, operation, params, requestId),
    );
    return true;
  };
}
