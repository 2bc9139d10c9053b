import { Router, type NextFunction, type Request, type Response } from 'express';
import type { ServiceMetrics } from '../metrics';

export const METRICS_PATH = '/metrics';
/** Probes and scrapes are not traffic: they would drown the request rate and latency. */
const UNMEASURED_PATHS = new Set(['/livez', '/readyz', METRICS_PATH]);

/**
 * `GET /metrics` in Prometheus text format. Like the health routes it sits outside the internal
 * guard: scrapers carry no secret. Expose it on the pod network only, never through an Ingress.
 */
export function metricsRoute(metrics: ServiceMetrics): Router {
  const router = Router();
  router.get(METRICS_PATH, async (_req, res) => {
    const { contentType, body } = await metrics.scrape();
    res.setHeader('content-type', contentType);
    res.send(body);
  });
  return router;
}

/** Counts and times every answered request by its route pattern, and error envelopes by code. */
export function recordHttpMetrics(metrics: ServiceMetrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (UNMEASURED_PATHS.has(req.path)) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    const route = rememberRoutePattern(req);
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { method: req.method, route: route(), status: res.statusCode };
      metrics.observeHttpRequest(labels, seconds);
      const code = res.locals.errorCode as string | undefined;
      if (code) metrics.countHttpError({ method: req.method, route: labels.route, code });
    });
    next();
  };
}

/**
 * The full pattern of the route that handled the request (`/internal/channels/:id`). Read when
 * express matches the route, because a nested router's base URL is gone again by the time an
 * error it threw is answered. Unmatched paths share one label, so a scan of random URLs cannot
 * grow the series without bound.
 */
function rememberRoutePattern(req: Request): () => string {
  let pattern: string | undefined;
  let matched: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => matched,
    set(route: { path?: unknown } | undefined) {
      matched = route;
      if (route) pattern = `${req.baseUrl}${String(route.path)}`;
    },
  });
  return () => pattern ?? 'unmatched';
}
