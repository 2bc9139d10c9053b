import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundError, createLogger, createOutboundClient } from '../../src';

let server: Server;
let base: string;
const logger = createLogger('test', 'silent');

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow') {
      setTimeout(() => res.end('late'), 1_000);
      return;
    }
    const status = Number(req.url?.slice(1)) || 200;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status }));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const newClient = (baseURL = base, countsAsFailure?: (status: number) => boolean) =>
  createOutboundClient({
    name: 'remote',
    baseURL,
    timeoutMs: 200,
    logger,
    breaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 60_000 },
    ...(countsAsFailure ? { countsAsFailure } : {}),
  });

describe('createOutboundClient', () => {
  test('when the remote answers any status, then the caller gets that response', async () => {
    const client = newClient();
    expect((await client.request({ url: '/404' })).status).toBe(404);
    expect((await client.request({ url: '/503' })).status).toBe(503);
    client.shutdown();
  });

  test('when the remote is too slow, then the call fails with a timeout within the bound', async () => {
    const client = newClient();
    const started = Date.now();
    await expect(client.request({ url: '/slow' })).rejects.toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(900);
    client.shutdown();
  });

  test('when nothing listens, then the call fails as unreachable', async () => {
    const client = newClient('http://127.0.0.1:1');
    const failure = await client.request({ url: '/' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OutboundError);
    expect(failure).toMatchObject({ kind: 'unreachable', client: 'remote' });
    client.shutdown();
  });

  test('when the remote keeps failing, then the breaker opens and calls fail fast without reaching it', async () => {
    const client = newClient(base, (status) => status >= 500);
    for (let i = 0; i < 3; i++) await client.request({ url: '/503' });
    expect(client.isCircuitOpen()).toBe(true);
    await expect(client.request({ url: '/200' })).rejects.toMatchObject({ kind: 'circuit_open' });
    client.shutdown();
  });

  test('when the remote keeps not answering, then the breaker opens by default', async () => {
    const client = newClient();
    for (let i = 0; i < 3; i++) {
      await expect(client.request({ url: '/slow' })).rejects.toMatchObject({ kind: 'timeout' });
    }
    expect(client.isCircuitOpen()).toBe(true);
    await expect(client.request({ url: '/200' })).rejects.toMatchObject({ kind: 'circuit_open' });
    client.shutdown();
  });

  test('when the remote answers 502, 503 or 504 and nothing says they count, then they pass through and the breaker stays closed', async () => {
    const client = newClient();
    for (const status of [502, 503, 504, 503, 502, 504]) {
      expect((await client.request({ url: `/${status}` })).status).toBe(status);
    }
    expect(client.isCircuitOpen()).toBe(false);
    expect((await client.request({ url: '/200' })).status).toBe(200);
    client.shutdown();
  });

  test('when the remote answers 4xx, then the breaker stays closed', async () => {
    const client = newClient();
    for (let i = 0; i < 5; i++) await client.request({ url: '/422' });
    expect(client.isCircuitOpen()).toBe(false);
    client.shutdown();
  });
});
