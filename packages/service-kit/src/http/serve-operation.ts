import type { Request, RequestHandler, Router } from 'express';
import {
  API_OPERATIONS,
  API_OPERATION_PREFIX,
  operationsServedBy,
  type ApiOperationName,
  type ServiceName,
} from '@switchboard/contracts';
import { AppError } from '../errors';

/** The operations each router serves, for the check that a service serves exactly what it owns. */
const served = new WeakMap<Router, Set<string>>();

/**
 * Serves `/api/svc/<operation>` on the methods its definitions in the contracts list, through
 * `handlers` (middleware such as the gateway's authentication, then the handler); any other
 * method answers 405 with an `Allow` header, so a wrong method is told apart from an unknown
 * operation.
 */
export function serveOperation(
  router: Router,
  name: ApiOperationName,
  ...handlers: [RequestHandler, ...RequestHandler[]]
): void {
  const operation = API_OPERATIONS.get(name);
  if (!operation) throw new Error(`${name} is not a defined operation`);
  for (const method of operation.methods) router[method](operation.path, ...handlers);
  const allowed = operation.methods.map((method) => method.toUpperCase());
  router.all(operation.path, (req, res) => {
    res.setHeader('Allow', allowed.join(', '));
    throw new AppError(
      'method_not_allowed',
      `${name} is called with ${allowed.join(' or ')}, not ${req.method}`,
    );
  });
  const names = served.get(router) ?? new Set<string>();
  served.set(router, names.add(name));
}

/** The paths of the routes on `router` (not those of routers mounted in it). */
function routePaths(router: Router): string[] {
  const stack = (router as unknown as { stack: { route?: { path: unknown } }[] }).stack;
  return stack.flatMap((layer) =>
    typeof layer.route?.path === 'string' ? [layer.route.path] : [],
  );
}

/**
 * Refuses a service whose routes differ from the operations the contracts give it: an operation
 * it owns without a handler (the gateway would forward it into a 404), an `/api/svc` handler for
 * an operation it does not own (never reached), or one registered without `serveOperation`.
 */
export function checkServedOperations(service: ServiceName, router: Router): void {
  const expected = new Set(operationsServedBy(service).map((operation) => operation.name));
  // Named operations only: not the gateway's forwarder (`/api/svc/:operation`), its document
  // (`/api/svc/openapi.json`) or its event stream.
  const registered = new Set(
    routePaths(router)
      .filter((path) => path.startsWith(API_OPERATION_PREFIX))
      .map((path) => path.slice(API_OPERATION_PREFIX.length))
      .filter((name) => /^[A-Za-z]+$/.test(name)),
  );
  const viaServeOperation = served.get(router) ?? new Set<string>();
  const problems = [
    ...[...expected]
      .filter((name) => !registered.has(name))
      .map((name) => `${name} has no handler`),
    ...[...registered]
      .filter((name) => !expected.has(name as ApiOperationName))
      .map((name) => `${name} is handled but not an operation ${service} owns`),
    ...[...registered]
      .filter((name) => expected.has(name as ApiOperationName) && !viaServeOperation.has(name))
      .map((name) => `${name} is routed without serveOperation`),
  ];
  if (problems.length > 0) {
    throw new Error(
      `${service} serves other operations than the contracts say: ${problems.join('; ')}`,
    );
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);

/**
 * An empty query value (`?page=`) is a value, judged like any other: `page` must be a number,
 * so it is refused rather than read as "not given" (a client sending it has a bug to hear about).
 */
function queryParameters(req: Request): Record<string, unknown> {
  return isPlainObject(req.query) ? req.query : {};
}

/**
 * The parameters of an operation: the query string for GET; for the other methods the body
 * (JSON, or a form the gateway re-encoded as JSON), over any query parameters.
 */
export function operationInput(req: Request): Record<string, unknown> {
  const query = queryParameters(req);
  if (req.method === 'GET' || req.method === 'HEAD') return query;
  return { ...query, ...(isPlainObject(req.body) ? req.body : {}) };
}
