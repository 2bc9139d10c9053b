import express, { type Express } from 'express';
import type { Logger } from '../logger';
import type { ServiceMetrics } from '../metrics';
import { errorMiddleware, notFoundHandler } from './error-middleware';
import { guardInput } from './input-guards';
import { healthRoutes, type ReadinessCheck } from './health-routes';
import { metricsRoute, recordHttpMetrics } from './metrics-routes';
import { requestContext } from './request-context';

export interface HttpAppOptions {
  logger: Logger;
  bodyLimit?: string;
  readinessChecks?: ReadinessCheck[];
  /** When given, requests are counted and timed, and `GET /metrics` serves the registry. */
  metrics?: ServiceMetrics;
  /** False: count requests but leave `GET /metrics` to another listener (a public-facing app). */
  serveMetrics?: boolean;
  /** Routes that need the raw request stream (signature checks, proxies), mounted before body parsing. */
  rawRoutes?: (app: Express) => void;
  routes: (app: Express) => void;
}

/**
 * Every service's express app: request ids, bounded body parsing, input that can be stored
 * (no NUL, no lone surrogate, bounded nesting), health (and metrics, when given), and the
 * spec's error envelope.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Nested brackets in query strings (`custom[city]=Rome`) as in form bodies.
  app.set('query parser', 'extended');

  app.use(requestContext(options.logger));
  if (options.metrics) {
    app.use(recordHttpMetrics(options.metrics));
    if (options.serveMetrics !== false) app.use(metricsRoute(options.metrics));
  }
  app.use(healthRoutes(options.readinessChecks ?? []));
  options.rawRoutes?.(app);

  const limit = options.bodyLimit ?? '1mb';
  app.use(express.json({ limit, type: ['application/json', 'application/*+json'] }));
  app.use(express.urlencoded({ extended: true, limit, parameterLimit: 1000 }));
  app.use(guardInput);

  options.routes(app);
  app.use(notFoundHandler);
  app.use(errorMiddleware);
  return app;
}
