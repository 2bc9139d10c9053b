import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createOutboundClient } from '../../src';

const logger = createLogger('test', 'silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stand-in for a Switchboard service: `/readyz` and one route, on a port chosen by the test. */
function listen(port = 0): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

/** A port that nothing listens on any more (a service that was just killed). */
async function deadPort(): Promise<number> {
  const server = await listen();
  const { port } = server.address() as AddressInfo;
  await close(server);
  return port;
}

const clientOf = (
  port: number,
  outsideRemote = false,
  countsAsFailure?: (status: number) => boolean,
) =>
  createOutboundClient({
    name: 'remote',
    baseURL: `http://127.0.0.1:${port}`,
    timeoutMs: 500,
    logger,
    outsideRemote,
    countsAsFailure,
    breaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 60_000 },
  });

async function openBreaker(client: ReturnType<typeof clientOf>) {
  for (let i = 0; i < 3; i++) await client.request({ url: '/' }).catch(() => undefined);
  expect(client.isCircuitOpen()).toBe(true);
}

describe('the breaker of a call to another Switchboard service', () => {
  test('when the service was unreachable and is ready again, then the breaker closes within a second, long before its reset timeout', async () => {
    const port = await deadPort();
    const client = clientOf(port);
    await openBreaker(client);
    const server = await listen(port);
    try {
      const back = Date.now();
      while (client.isCircuitOpen() && Date.now() - back < 5_000) await sleep(20);
      expect(Date.now() - back).toBeLessThan(1_000);
      expect((await client.request({ url: '/' })).status).toBe(200);
    } finally {
      client.shutdown();
      await close(server);
    }
  });

  test('when the service stays down, then the breaker stays open', async () => {
    const client = clientOf(await deadPort());
    await openBreaker(client);
    await sleep(1_000);
    expect(client.isCircuitOpen()).toBe(true);
    client.shutdown();
  });

  test('when the breaker opened on answers that count as failures, then a ready service does not close it', async () => {
    const server = createServer((req, res) => {
      res.writeHead(req.url === '/readyz' ? 200 : 503);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = clientOf(
      (server.address() as AddressInfo).port,
      false,
      (status) => status >= 500,
    );
    try {
      for (let i = 0; i < 3; i++) await client.request({ url: '/' });
      expect(client.isCircuitOpen()).toBe(true);
      await sleep(1_000);
      expect(client.isCircuitOpen()).toBe(true);
    } finally {
      client.shutdown();
      await close(server);
    }
  });

  test('when the remote is outside Switchboard, then nothing probes it and the breaker waits out its reset timeout', async () => {
    const port = await deadPort();
    const client = clientOf(port, true);
    await openBreaker(client);
    const server = await listen(port);
    try {
      await sleep(1_000);
      expect(client.isCircuitOpen()).toBe(true);
    } finally {
      client.shutdown();
      await close(server);
    }
  });
});
