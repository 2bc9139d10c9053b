import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import type { HttpMethod, Operation } from '@switchboard/contracts';

/**
 * A route of a neighbour as the contracts describe it: a public operation (from
 * `API_OPERATIONS`) or an internal route, whose schemas the contracts export beside its path
 * (e.g. `ProvisionChannelRequestSchema` for `POST /internal/channels`). Path parameters are
 * written `{name}`, as in the OpenAPI document.
 */
export interface StubbedRoute {
  method: HttpMethod;
  path: string;
  request?: { body?: z.ZodType; query?: z.ZodType };
  /** The answers the route may give, by HTTP status; an error status needs no schema. */
  responses: { [status: number]: z.ZodType };
}

/** What a stub's handler sees of one request, already checked against the route's schemas. */
export interface StubRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  /** The body's bytes as they arrived, for a route whose signature covers them. */
  text: string;
  headers: IncomingMessage['headers'];
}

/** A handler's answer: a status and a JSON body (checked against the route's response schema). */
export interface StubAnswer {
  status: number;
  body: unknown;
}

export type StubHandler = (request: StubRequest) => StubAnswer | Promise<StubAnswer>;

export interface ContractStub {
  url: string;
  port: number;
  /** Every request the stub took, in arrival order, by route path (`POST /internal/channels`). */
  calls: { route: string; request: StubRequest }[];
  /** Requests or answers that broke the contract; `stop` fails when any were seen. */
  violations: string[];
  /** Stops listening (the neighbour is down) without forgetting what was seen. */
  close(): Promise<void>;
  /** Listens again on the same port (the neighbour is back). */
  reopen(): Promise<void>;
  /** Stops, and throws when a request or an answer broke the contract. */
  stop(): Promise<void>;
}

/** One route of a stub and what it answers. */
export const stubRoute = (route: StubbedRoute, handler: StubHandler) => ({ route, handler });
export type StubbedHandler = ReturnType<typeof stubRoute>;

/** A public operation as a stubbed route: its request and response schemas as the contracts define them. */
export function operationRoute(operation: Operation): StubbedRoute {
  return {
    method: operation.method,
    path: operation.path,
    request: { body: operation.request?.body, query: operation.request?.query },
    responses: operation.responses,
  };
}

/**
 * A neighbour service replaced by a local HTTP server that speaks its contract: each request is
 * checked against the route's request schema, and each answer the test's handler gives against
 * the route's response schema. A mismatch on either side is answered 500, recorded, and fails
 * the test file when the stub stops, so a stub cannot drift from the real service unnoticed.
 * A request to a route the stub does not know is a violation too.
 */
export async function createContractStub(
  name: string,
  routes: StubbedHandler[],
): Promise<ContractStub> {
  const calls: ContractStub['calls'] = [];
  const violations: string[] = [];
  const server: Server = createServer((req, res) => {
    void answer(req).then(({ status, body }) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });

  async function answer(req: IncomingMessage): Promise<StubAnswer> {
    const url = new URL(req.url ?? '/', 'http://stub');
    const method = (req.method ?? 'GET').toLowerCase();
    const found = routes
      .map((entry) => ({ entry, params: matchPath(entry.route.path, url.pathname) }))
      .find(({ entry, params }) => params && entry.route.method === method);
    const refuse = (message: string): StubAnswer => {
      violations.push(`${name}: ${message}`);
      return { status: 500, body: { status: 'error', message: `contract stub: ${message}` } };
    };
    if (!found?.params) return refuse(`no stubbed route for ${req.method} ${url.pathname}`);
    const { route, handler } = found.entry;
    const label = `${route.method.toUpperCase()} ${route.path}`;

    const text = await readText(req);
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        return refuse(`${label}: the request body is not JSON`);
      }
    }
    const query = Object.fromEntries(url.searchParams);
    const checkedBody = route.request?.body?.safeParse(body ?? {});
    if (checkedBody && !checkedBody.success) {
      return refuse(`${label}: request body ${checkedBody.error.message}`);
    }
    const checkedQuery = route.request?.query?.safeParse(query);
    if (checkedQuery && !checkedQuery.success) {
      return refuse(`${label}: request query ${checkedQuery.error.message}`);
    }
    const request: StubRequest = { params: found.params, query, body, text, headers: req.headers };
    calls.push({ route: label, request });

    let given: StubAnswer;
    try {
      given = await handler(request);
    } catch (error) {
      return refuse(`${label}: the stub's handler threw ${String(error)}`);
    }
    const schema = route.responses[given.status];
    if (schema) {
      const checked = schema.safeParse(given.body);
      if (!checked.success) {
        return refuse(`${label}: the stub's ${given.status} answer ${checked.error.message}`);
      }
    } else if (given.status < 400) {
      return refuse(`${label}: the contract has no ${given.status} answer`);
    }
    return given;
  }

  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    violations,
    close,
    reopen: listen,
    async stop() {
      if (server.listening) await close();
      if (violations.length > 0) {
        throw new Error(`the ${name} stub saw the contract broken:\n${violations.join('\n')}`);
      }
    },
  };
}

/** The path's `{name}` parameters when `path` matches the template, else undefined. */
function matchPath(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, n) => {
    names.push(String(n));
    return '([^/]+)';
  });
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) return undefined;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs every stop in order even when one fails (a stub that saw its contract broken), then
 * throws the first failure: a test file must close all it started, or jest never exits.
 */
export async function stopInOrder(...stops: (() => Promise<unknown> | undefined)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const stop of stops) {
    try {
      await stop();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}
