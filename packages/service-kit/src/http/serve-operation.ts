import type { Request, Response, Router } from 'express';
import { AppError } from '../errors';

export type OperationMethod = 'get' | 'post' | 'put' | 'delete';
type Handler = (req: Request, res: Response) => Promise<void>;

/**
 * Serves `/api/svc/<operation>` on the methods the API lists for it; any other method answers
 * 405 with an `Allow` header, so a wrong method is told apart from an unknown operation.
 */
export function serveOperation(
  router: Router,
  operation: string,
  methods: readonly OperationMethod[],
  handler: Handler,
): void {
  const path = `/api/svc/${operation}`;
  for (const method of methods) router[method](path, handler);
  const allowed = methods.map((method) => method.toUpperCase());
  router.all(path, (req, res) => {
    res.setHeader('Allow', allowed.join(', '));
    throw new AppError(
      'method_not_allowed',
      `${operation} is called with ${allowed.join(' or ')}, not ${req.method}`,
    );
  });
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
