import type { NextFunction, Request, Response } from 'express';
import { ALL_OPERATIONS, type Operation } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';

interface PathMethods {
  pattern: RegExp;
  /** How the refusal names the path: an operation by its name, anything else by its path. */
  name: string;
  /** The documented methods, for the refusal's words. */
  documented: string;
  methods: Set<string>;
  allow: string;
}

/** One entry per documented path; `/api/svc/` operation names match in any case, as routing does. */
function pathMethods(operations: readonly Operation[]): PathMethods[] {
  const byPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    const methods = byPath.get(operation.path) ?? new Set<string>();
    methods.add(operation.method.toUpperCase());
    byPath.set(operation.path, methods);
  }
  return [...byPath].map(([path, methods]) => {
    const documented = [...methods].join(' or ');
    // A GET route answers HEAD as well (express does), and OPTIONS is answered here.
    if (methods.has('GET')) methods.add('HEAD');
    const source = path
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    return {
      pattern: new RegExp(`^${source}/?$`, path.startsWith('/api/svc/') ? 'i' : ''),
      name: path.replace(/^\/api\/svc\//, ''),
      documented,
      methods,
      allow: [...methods, 'OPTIONS'].join(', '),
    };
  });
}

/**
 * A documented path called with a method it does not take answers 405 with `Allow` here, at the
 * edge, from the same operation list the OpenAPI document is built from; OPTIONS answers 204 with
 * `Allow`. Nothing unlisted reaches the owner, so no owner's default (404, or 200 for any
 * method on `/me`) decides it.
 */
export function methodGuard(operations: readonly Operation[] = ALL_OPERATIONS) {
  const paths = pathMethods(operations);
  return (req: Request, res: Response, next: NextFunction): void => {
    const entry = paths.find(({ pattern }) => pattern.test(req.path));
    if (!entry || entry.methods.has(req.method)) return next();
    res.setHeader('Allow', entry.allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    throw new AppError(
      'method_not_allowed',
      `${entry.name} is called with ${entry.documented}, not ${req.method}`,
    );
  };
}
