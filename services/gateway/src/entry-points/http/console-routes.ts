import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Response, type Router } from 'express';
import { AppError, sendError } from '@switchboard/service-kit';

/** Where `npm run build` leaves the console's files (the same depth from src/ and dist/). */
export const CONSOLE_DIST = path.resolve(__dirname, '../../../../../packages/console/dist');

/**
 * The console's pages may run only the bundle served here: no inline script, nothing from
 * another origin, no framing. Inline styles are allowed: the component library sets CSS
 * variables and positions popovers with style attributes (a style cannot run code).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
}

/**
 * `/console/`: the built single-page app. Its hashed assets are cached for good; any other
 * path under it is one of the app's own routes and gets index.html (never cached, so a new
 * build is picked up), so a reload or an invitation link opens the right page.
 */
export function consoleRoutes(router: Router, distDir = CONSOLE_DIST): void {
  const index = path.join(distDir, 'index.html');
  // Routing ignores a trailing slash: only the bare `/console` is sent on to `/console/`.
  router.get('/console', (req, res, next) => {
    if (req.path.endsWith('/')) return next();
    res.redirect(301, '/console/');
  });
  router.use(
    '/console/assets',
    express.static(path.join(distDir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      setHeaders: (res) => securityHeaders(res as Response),
    }),
  );
  // An asset of an older build is gone: 404, never index.html served as a script.
  router.use('/console/assets', (_req, res) => {
    sendError(res, new AppError('not_found', 'No such console file: reload the page'));
  });
  router.get('/console/{*page}', (_req, res) => {
    securityHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    if (!existsSync(index)) {
      res
        .status(503)
        .type('text/plain')
        .send('The console is not built: run `npm run build` (npm start does it).');
      return;
    }
    res.sendFile(index);
  });
}
