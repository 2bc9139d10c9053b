// The gateway's door to the console's built files: the policy on every answer, the app's own
// routes answered with index.html (a reload or an invitation link), hashed assets cached.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { consoleRoutes } from '../../src/entry-points/http/console-routes';

let dist: string;
let server: Server;
let base: string;

async function serve(distDir: string): Promise<void> {
  const app = express();
  const router = express.Router();
  consoleRoutes(router, distDir);
  app.use(router);
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeEach(() => {
  dist = mkdtempSync(path.join(tmpdir(), 'console-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
});

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dist, { recursive: true, force: true });
});

test('when a page of the console is asked for, then index.html comes with a policy that allows no inline or foreign script', async () => {
  await serve(dist);
  for (const page of ['/console/', '/console/settings', '/console/accept-invitation']) {
    const response = await fetch(base + page);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>console</title>');
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toMatch(/script-src 'self'(;|$)/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(response.headers.get('cache-control')).toBe('no-cache');
  }
});

test('when an asset is asked for, then it is served for good under the same policy, and a missing one is not index.html', async () => {
  await serve(dist);
  const asset = await fetch(`${base}/console/assets/index-abc123.js`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get('cache-control')).toContain('immutable');
  expect(asset.headers.get('content-security-policy')).toContain("script-src 'self'");
  const missing = await fetch(`${base}/console/assets/gone.js`, { redirect: 'manual' });
  expect(missing.status).toBe(404);
});

test('when /console is asked for without its slash, then it is sent to /console/', async () => {
  await serve(dist);
  const response = await fetch(`${base}/console`, { redirect: 'manual' });
  expect(response.status).toBe(301);
  expect(response.headers.get('location')).toBe('/console/');
});

test('when the console was not built, then its pages say how to build it', async () => {
  await serve(path.join(dist, 'nothing-here'));
  const response = await fetch(`${base}/console/`);
  expect(response.status).toBe(503);
  expect(await response.text()).toContain('npm run build');
});
