import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import {
  INTERNAL_SECRET_HEADER,
  ORG_HEADERS,
  REQUEST_ID_HEADER,
  USER_HEADERS,
  type Plan,
  type ServiceName,
} from '@switchboard/contracts';
import {
  AppError,
  OutboundError,
  createRemoteGuard,
  requestId,
  type Logger,
  type RemoteGuard,
} from '@switchboard/service-kit';

export type OwnerService = Exclude<ServiceName, 'gateway'>;

/** The organization a request acts for, as the trusted headers state it. */
export interface ForwardedOrganization {
  company_id: number;
  plan: Plan;
  plan_started_at: Date;
}

/** The signed-in user a console request acts for (none for an API token). */
export interface SignedInUser {
  user_id: number;
  role: string;
}

/** Answers up to this length are read whole and written to the client in one call. */
const SHORT_ANSWER_BYTES = 16 * 1024;
/** Request headers that mean something to the owning service; everything else stays at the edge. */
const FORWARDED_HEADERS = [
  'accept',
  'content-type',
  'content-length',
  'idempotency-key',
  'traceparent',
  'tracestate',
  'user-agent',
  'x-hub-signature-256',
];
const RETURNED_HEADERS = [
  'content-type',
  'retry-after',
  'idempotent-replayed',
  // A file served by getMedia: offered as a download unless an image, audio or video.
  'content-disposition',
  'x-content-type-options',
  'cache-control',
];

/** A client's request as the proxy forwards it, from express or from the gateway's fast path. */
export interface ProxiedRequest {
  method: string;
  /** The request target as sent: path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed body (JSON or form), re-sent without the token; undefined: `stream` goes as is. */
  body: unknown;
  stream: IncomingMessage;
  /** A body the edge prepared in place of the request's own (a form without its token part). */
  forwardBody?: Readable;
  /** The request's own body, read whole at the edge (a short one): sent on as it is. */
  rawBody?: Buffer;
  requestId: string;
}

/** The express request's description for `forwardRequest`. */
export const proxiedRequestOf = (req: Request, res: Response): ProxiedRequest => ({
  method: req.method,
  url: req.originalUrl,
  headers: req.headers,
  body: req.body,
  stream: req,
  forwardBody: forwardedBodyOf(res),
  requestId: requestId(res),
});

export interface ServiceProxyOptions {
  urls: Record<OwnerService, string>;
  internalSecret: string;
  timeoutMs: number;
  logger: Logger;
  /**
   * Whether a path of an owner may be forwarded to, with the internal secret: the public
   * operations' own paths only, never `/internal/*` or `/metrics`.
   */
  isForwardable(path: string): boolean;
}

/**
 * Forwards a request to the service that owns it, stating the organization in trusted headers.
 * A parsed body is re-sent as JSON without the token; a file form is streamed through without its
 * token part; another unparsed body (the provider's signed webhooks) byte for byte.
 *
 * Calls go over plain node:http on one keep-alive agent per owner rather than through axios: the
 * hop is on every public request, and axios' request building, adapters and response wrapping
 * cost more than the rest of the gateway's work (docs/benchmarks.md, "Gateway proxy hop"). The
 * breaker and readiness probe are the service kit's, as for every other remote.
 */
export function createServiceProxy(options: ServiceProxyOptions) {
  const isForwardable = remembered(options.isForwardable);
  const owners = new Map<OwnerService, Owner>();
  for (const [service, baseURL] of Object.entries(options.urls) as [OwnerService, string][]) {
    owners.set(service, {
      url: new URL(baseURL),
      agent: new http.Agent({ keepAlive: true }),
      // Any answer of an owner is passed on: messaging's 502/503 is one channel's provider
      // failing, and counting it would open this breaker for every organization's calls. Only
      // no answer (refused, timed out) counts, and opens the breaker until `/readyz` says ready.
      guard: createRemoteGuard({ name: service, logger: options.logger, probeBaseURL: baseURL }),
    });
  }

  /** One call to an owner; resolves once its status and headers are in, the body still to read. */
  function send(
    service: OwnerService,
    method: string,
    path: string,
    headers: OutgoingHttpHeaders,
    body: Buffer | Readable | undefined,
    timeoutMs = options.timeoutMs,
  ): Promise<IncomingMessage> {
    const owner = owners.get(service)!;
    return owner.guard.run(
      () => exchange(owner, timeoutMs, method, path, headers, body),
      (answer) => answer.statusCode ?? 0,
    );
  }

  async function unavailableIfUnanswered<T>(service: OwnerService, call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof OutboundError) {
        throw new AppError('dependency_unavailable', `The ${service} service is unavailable`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  const proxy = {
    /**
     * `path` is the owner's path of a public operation; the internal secret goes only there,
     * so that no client-chosen path can reach an owner's `/internal/*` or `/metrics`.
     */
    forward(
      service: OwnerService,
      req: Request,
      res: Response,
      path: string,
      organization?: ForwardedOrganization,
      user?: SignedInUser,
    ): Promise<void> {
      return proxy.forwardRequest(
        service,
        proxiedRequestOf(req, res),
        res,
        path,
        organization,
        user,
      );
    },

    async forwardRequest(
      service: OwnerService,
      req: ProxiedRequest,
      res: ServerResponse,
      path: string,
      organization?: ForwardedOrganization,
      user?: SignedInUser,
    ): Promise<void> {
      if (!isForwardable(path)) throw new AppError('not_found', 'No such path');
      const search = searchWithoutToken(req.url);

      const headers: OutgoingHttpHeaders = {
        [INTERNAL_SECRET_HEADER]: options.internalSecret,
        [REQUEST_ID_HEADER]: req.requestId,
      };
      for (const name of FORWARDED_HEADERS) {
        const value = req.headers[name];
        if (value !== undefined) headers[name] = value;
      }
      if (organization) {
        headers[ORG_HEADERS.companyId] = String(organization.company_id);
        headers[ORG_HEADERS.plan] = organization.plan;
        headers[ORG_HEADERS.planStartedAt] = organization.plan_started_at.toISOString();
      }
      // Only ever from the session: a client's own x-user-* headers are not among those forwarded.
      if (user) {
        headers[USER_HEADERS.userId] = String(user.user_id);
        headers[USER_HEADERS.role] = user.role;
      }

      let body: Buffer | Readable | undefined;
      const form = req.forwardBody;
      if (form) {
        // The form without its token part: another length than the client's, so sent chunked.
        body = form;
        delete headers['content-length'];
      } else if (req.rawBody) {
        body = req.rawBody;
        headers['content-length'] = req.rawBody.length;
      } else if (isParsedBody(req.body)) {
        const { token: _token, ...rest } = req.body as Record<string, unknown>;
        body = Buffer.from(JSON.stringify(rest));
        headers['content-type'] = 'application/json';
        headers['content-length'] = body.length;
      } else if (hasBody(req.headers)) {
        body = req.stream;
      } else {
        delete headers['content-length'];
      }

      const answer = await unavailableIfUnanswered(
        service,
        send(service, req.method, path + search, headers, body),
      );
      res.statusCode = answer.statusCode ?? 502;
      for (const name of RETURNED_HEADERS) {
        const value = answer.headers[name];
        if (typeof value === 'string') res.setHeader(name, value);
      }
      // A known length goes on, so the client's answer is not chunked: one write, not two.
      const length = answer.headers['content-length'];
      if (length !== undefined && answer.headers['transfer-encoding'] === undefined) {
        res.setHeader('content-length', length);
        // A short answer (most are) is passed on whole, without a pipe's listeners each way.
        if (Number(length) <= SHORT_ANSWER_BYTES) {
          res.end(await readAnswer(answer, res));
          return;
        }
      }
      // Streamed through, so a long listing is never held whole in the gateway's memory.
      await relay(answer, res);
    },

    /** A call of the gateway's own to an internal route (`/internal/*`) of another service. */
    async call<T>(
      service: OwnerService,
      config: {
        method: 'GET' | 'POST' | 'PUT' | 'DELETE';
        url: string;
        data?: unknown;
        /** Shorter than the proxy's own timeout where a late answer is worth less than none. */
        timeoutMs?: number;
      },
      requestIdValue?: string,
    ): Promise<{ status: number; data: T }> {
      const headers: OutgoingHttpHeaders = {
        [INTERNAL_SECRET_HEADER]: options.internalSecret,
        accept: 'application/json',
      };
      if (requestIdValue) headers[REQUEST_ID_HEADER] = requestIdValue;
      let body: Buffer | undefined;
      if (config.data !== undefined) {
        body = Buffer.from(JSON.stringify(config.data));
        headers['content-type'] = 'application/json';
        headers['content-length'] = body.length;
      }
      const answer = await unavailableIfUnanswered(
        service,
        send(service, config.method, config.url, headers, body, config.timeoutMs),
      );
      const text = Buffer.concat(await answer.toArray()).toString('utf8');
      let data: unknown = text;
      if (String(answer.headers['content-type']).includes('json') && text !== '') {
        data = JSON.parse(text);
      }
      return { status: answer.statusCode ?? 502, data: data as T };
    },

    shutdown(): void {
      for (const owner of owners.values()) {
        owner.guard.shutdown();
        owner.agent.destroy();
      }
    },
  };
  return proxy;
}
export type ServiceProxy = ReturnType<typeof createServiceProxy>;

/** A body the edge prepared to send in place of the request's own (`res.locals.forwardBody`). */
function forwardedBodyOf(res: Response): Readable | undefined {
  const body: unknown = res.locals.forwardBody;
  return body instanceof Readable ? body : undefined;
}

function isParsedBody(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body);
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
}

/**
 * The whole of a short answer; if it breaks off, the client's answer is cut off too (as `relay`
 * does), so that the client never takes a partial body for a whole one.
 */
function readAnswer(answer: IncomingMessage, res: ServerResponse): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const fail = (error: Error) => {
      answer.destroy();
      res.destroy(error);
      reject(error);
    };
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.once('end', () =>
      answer.complete
        ? resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
        : fail(new Error('the owner closed its answer early')),
    );
    answer.once('error', fail);
    answer.once('aborted', () => fail(new Error('the owner closed its answer early')));
  });
}

/**
 * Pipes the owner's answer to the client; settles when the client's answer is finished or either
 * side is gone (then both are closed). Not stream/promises' pipeline: its abort controller costs
 * a DOMException per request, 4 % of the gateway's CPU.
 */
function relay(answer: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      answer.destroy();
      res.destroy(error);
      reject(error);
    };
    answer.once('error', fail);
    answer.once('aborted', () => fail(new Error('the owner closed its answer early')));
    res.once('close', () => {
      if (!answer.complete) answer.destroy();
      resolve();
    });
    answer.pipe(res);
  });
}

interface Owner {
  url: URL;
  agent: http.Agent;
  guard: RemoteGuard;
}

/** Answers remembered per path: a few paths (the operations', the channels' webhooks) recur. */
const REMEMBERED_PATHS = 1_000;

/**
 * `check` with its answers remembered, so that the path check (a URL parse and patterns) runs
 * once per path rather than on every request; forgets all when full.
 */
function remembered(check: (path: string) => boolean): (path: string) => boolean {
  const answers = new Map<string, boolean>();
  return (path) => {
    let answer = answers.get(path);
    if (answer === undefined) {
      answer = check(path);
      if (answers.size >= REMEMBERED_PATHS) answers.clear();
      answers.set(path, answer);
    }
    return answer;
  };
}

/**
 * A query of plain pairs (`page=1&per_page=20`): what the URL parser writes back unchanged, so it
 * is passed on without a parse when it does not name `token`.
 */
const PLAIN_QUERY = /^\?[\w.*-]+=[\w.*-]*(?:&[\w.*-]+=[\w.*-]*)*$/;
const NAMES_TOKEN = /[?&]token=/;

/** The query string, as the URL parser writes it, without `token`, which stays at the edge. */
function searchWithoutToken(originalUrl: string): string {
  const queryAt = originalUrl.indexOf('?');
  if (queryAt === -1) return '';
  const query = originalUrl.slice(queryAt);
  if (PLAIN_QUERY.test(query) && !NAMES_TOKEN.test(query)) return query;
  const url = new URL(originalUrl, 'http://gateway');
  url.searchParams.delete('token');
  return url.search;
}

/**
 * One request on the owner's keep-alive agent. No answer (status line and headers) within
 * `timeoutMs` is a timeout (ETIMEDOUT); a body that then stalls as long ends the exchange too.
 */
function exchange(
  owner: Owner,
  timeoutMs: number,
  method: string,
  path: string,
  headers: OutgoingHttpHeaders,
  body: Buffer | Readable | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      protocol: owner.url.protocol,
      hostname: owner.url.hostname,
      port: owner.url.port,
      method,
      path,
      headers,
      agent: owner.agent,
    });
    const timer = setTimeout(() => {
      request.destroy(Object.assign(new Error('no answer in time'), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    request.setTimeout(timeoutMs, () => {
      request.destroy(Object.assign(new Error('stalled'), { code: 'ETIMEDOUT' }));
    });
    request.once('response', (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    if (body instanceof Readable) {
      body.pipe(request);
      body.once('error', (error) => request.destroy(error));
    } else {
      request.end(body);
    }
  });
}
