import { Router } from 'express';

export interface ReadinessCheck {
  name: string;
  check: () => boolean | Promise<boolean>;
}

/** `/livez` checks nothing external (restart only a stuck process); `/readyz` checks dependencies. */
export function healthRoutes(checks: ReadinessCheck[]): Router {
  const router = Router();
  router.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results: Record<string, boolean> = {};
    for (const { name, check } of checks) {
      try {
        results[name] = await check();
      } catch {
        results[name] = false;
      }
    }
    const ready = Object.values(results).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks: results });
  });
  return router;
}
