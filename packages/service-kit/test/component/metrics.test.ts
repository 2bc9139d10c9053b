import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import { z } from 'zod';
import {
  AppError,
  PermanentError,
  baseConfigSchema,
  createHttpApp,
  createLogger,
  createOutboundClient,
  createServiceMetrics,
  startServiceRuntime,
  type Broker,
  type MessageOutcome,
  type OutboundClient,
  type RunningService,
  type ServiceConfig,
} from '../../src';
import {
  AMQP_URL,
  MONGODB_URL,
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  randomSecret,
  uniquePrefix,
} from '../../../../test/support/test-infra';

const prefix = uniquePrefix('metrics');
const logger = createLogger('metrics-test', 'silent');
const config: ServiceConfig = {
  ...baseConfigSchema.parse({
    MONGODB_URL,
    AMQP_URL,
    MONGODB_DB_PREFIX: prefix,
    INTERNAL_API_SECRET: randomSecret(),
    LOG_LEVEL: 'silent',
  }),
  PORT: 0,
};

/** A remote that answers the status named by its path: `/503` → 503. */
let remote: Server;
let remoteUrl: string;

beforeAll(async () => {
  remote = createServer((req, res) => {
    res.writeHead(Number(req.url?.slice(1)) || 200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  remote.listen(0, '127.0.0.1');
  await new Promise((resolve) => remote.once('listening', resolve));
  remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => remote.close(resolve));
  await dropDatabasesWithPrefix(prefix);
});

/** The value of one sample in a Prometheus text exposition, or undefined when it is absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [
        pair[1],
        pair[2],
      ]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) {
      return Number(match[3]);
    }
  }
  return undefined;
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

function outcomeOf(broker: Broker, event: `message:${'acked' | 'retried' | 'parked'}`, id: string) {
  return new Promise<MessageOutcome>((resolve) => {
    const listener = (outcome: MessageOutcome) => {
      if (outcome.messageId !== id) return;
      broker.off(event, listener);
      resolve(outcome);
    };
    broker.on(event, listener);
  });
}

describe('service metrics', () => {
  test('when a service has handled requests, messages and outbound calls, then /metrics shows each counter moved', async () => {
    const vhost = await isolatedAmqpUrl('metrics');
    const queue = `test.metrics.${randomUUID()}`;
    const clients: OutboundClient[] = [];
    let service: RunningService<ServiceConfig> | undefined;
    try {
      service = await startServiceRuntime({
        service: 'inbound',
        config: { ...config, AMQP_URL: vhost.url },
        topology: [{ kind: 'queue', name: queue, owner: 'contacts', role: 'work', arguments: {} }],
        setup: ({ broker }) => {
          // Created during setup without being handed the registry: counted all the same.
          const early = createOutboundClient({
            name: 'remote',
            baseURL: remoteUrl,
            timeoutMs: 1_000,
            logger,
          });
          clients.push(early);
          return {
            routes: (router) => {
              router.get('/internal/things/:id', (_req, res) => {
                res.json({ status: 'success' });
              });
              router.get('/internal/conflict', () => {
                throw new AppError('conflict', 'Already there');
              });
              router.post('/internal/call/:status', async (req, res) => {
                // Created while a request runs: it finds its service's metrics too.
                const late = createOutboundClient({
                  name: 'late-remote',
                  baseURL: remoteUrl,
                  timeoutMs: 1_000,
                  logger,
                });
                clients.push(late);
                const answer = await late.request({ url: `/${req.params.status}` });
                await early.request({ url: '/200' });
                res.json({ status: answer.status });
              });
            },
            startConsumers: () =>
              broker!.consume(
                queue,
                async (body, { attempt }) => {
                  if (body.kind === 'permanent') throw new PermanentError('cannot be done');
                  if (body.kind === 'transient' && attempt === 1) throw new Error('try again');
                },
                { schema: z.object({ kind: z.string() }), prefetch: 5, retryDelayMs: 50 },
              ),
          };
        },
      });
      const secret = { 'x-internal-secret': config.INTERNAL_API_SECRET };
      const before = await scrape(service.url);
      expect(sample(before, 'switchboard_broker_connected', { service: 'inbound' })).toBe(1);
      expect(sample(before, 'switchboard_outbound_breaker_state', { client: 'remote' })).toBe(0);
      expect(before).toMatch(/^process_cpu_user_seconds_total\{service="inbound"\} /m);

      for (let i = 0; i < 2; i++) {
        await fetch(`${service.url}/internal/things/${i}`, { headers: secret });
      }
      await fetch(`${service.url}/internal/conflict`, { headers: secret });
      await fetch(`${service.url}/internal/things/1`); // no secret: 403
      await fetch(`${service.url}/no/such/path/${randomUUID()}`, { headers: secret });
      await fetch(`${service.url}/internal/call/503`, { method: 'POST', headers: secret });
      await fetch(`${service.url}/livez`);
      await fetch(`${service.url}/readyz`);

      const broker = service.broker!;
      const ids = { ok: randomUUID(), transient: randomUUID(), permanent: randomUUID() };
      const outcomes = Promise.all([
        outcomeOf(broker, 'message:acked', ids.ok),
        outcomeOf(broker, 'message:retried', ids.transient),
        outcomeOf(broker, 'message:acked', ids.transient),
        outcomeOf(broker, 'message:parked', ids.permanent),
      ]);
      for (const [kind, messageId] of Object.entries(ids)) {
        await broker.publish('', queue, { kind }, { messageId });
      }
      await outcomes;

      const after = await scrape(service.url);
      const http = (route: string, status: string) =>
        sample(after, 'switchboard_http_requests_total', { method: 'GET', route, status });
      expect(http('/internal/things/:id', '200')).toBe(2);
      expect(http('/internal/conflict', '409')).toBe(1);
      expect(http('unmatched', '403')).toBe(1);
      expect(http('unmatched', '404')).toBe(1);
      expect(
        sample(after, 'switchboard_http_request_duration_seconds_count', {
          route: '/internal/things/:id',
          status: '200',
        }),
      ).toBe(2);
      expect(
        sample(after, 'switchboard_http_request_duration_seconds_bucket', {
          route: '/internal/things/:id',
          le: '+Inf',
        }),
      ).toBe(2);
      expect(sample(after, 'switchboard_http_errors_total', { code: 'conflict' })).toBe(1);
      expect(sample(after, 'switchboard_http_errors_total', { code: 'forbidden' })).toBe(1);
      expect(sample(after, 'switchboard_http_errors_total', { code: 'not_found' })).toBe(1);
      // Probes and scrapes are not traffic.
      expect(after).not.toMatch(/route="\/(livez|readyz|metrics)"/);

      const messages = (outcome: string) =>
        sample(after, 'switchboard_broker_messages_total', { queue, outcome });
      expect([messages('acked'), messages('retried'), messages('parked')]).toEqual([2, 1, 1]);

      const outbound = (client: string, outcome: string) =>
        sample(after, 'switchboard_outbound_requests_total', { client, outcome });
      expect(outbound('late-remote', '5xx')).toBe(1);
      expect(outbound('remote', '2xx')).toBe(1);
      expect(
        sample(after, 'switchboard_outbound_request_duration_seconds_count', { client: 'remote' }),
      ).toBe(1);
      expect(sample(after, 'switchboard_outbound_breaker_state', { client: 'late-remote' })).toBe(
        0,
      );
    } finally {
      for (const client of clients) client.shutdown();
      await service?.stop();
      await vhost.drop();
    }
  });

  test('when two services run in one process, then each /metrics counts only its own traffic', async () => {
    const start = (name: 'webhooks' | 'inbound') =>
      startServiceRuntime({
        service: name,
        config,
        useBroker: false,
        publicFacing: true,
        setup: () => ({
          routes: (router) => router.get('/ping', (_req, res) => void res.json({ name })),
        }),
      });
    const [one, two] = await Promise.all([start('webhooks'), start('inbound')]);
    try {
      await fetch(`${one.url}/ping`);
      await fetch(`${one.url}/ping`);
      const labels = { route: '/ping', status: '200' };
      // A public-facing runtime serves no /metrics on its port: its registry is read directly.
      const read = async (running: typeof one) => (await running.metrics.scrape()).body;
      expect((await fetch(`${one.url}/metrics`)).status).toBe(404);
      expect(sample(await read(one), 'switchboard_http_requests_total', labels)).toBe(2);
      expect(sample(await read(two), 'switchboard_http_requests_total', labels)).toBeUndefined();
      expect(sample(await read(two), 'switchboard_broker_connected')).toBe(0);
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  });

  test('when a nested router throws, then the request is labelled with the full route pattern', async () => {
    const metrics = createServiceMetrics('test', { defaultMetrics: false });
    const app = createHttpApp({
      logger,
      metrics,
      routes: (expressApp) => {
        const items = Router();
        items.get('/:id', () => {
          throw new AppError('not_found', 'No such item');
        });
        expressApp.use('/internal/items', items);
      },
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect((await fetch(`${url}/internal/items/42`)).status).toBe(404);
      const text = await scrape(url);
      expect(
        sample(text, 'switchboard_http_errors_total', {
          route: '/internal/items/:id',
          code: 'not_found',
        }),
      ).toBe(1);
      expect(
        sample(text, 'switchboard_http_requests_total', { service: 'test', status: '404' }),
      ).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('when a breaker opens, then its state reads 2 and refused calls count as circuit_open until the client shuts down', async () => {
    const metrics = createServiceMetrics('test', { defaultMetrics: false });
    const client = createOutboundClient({
      name: 'flaky',
      baseURL: remoteUrl,
      timeoutMs: 1_000,
      logger,
      metrics,
      countsAsFailure: (status) => status >= 500,
      breaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 60_000 },
    });
    for (let i = 0; i < 3; i++) await client.request({ url: '/503' });
    await expect(client.request({ url: '/200' })).rejects.toMatchObject({ kind: 'circuit_open' });
    let text = (await metrics.scrape()).body;
    expect(sample(text, 'switchboard_outbound_breaker_state', { client: 'flaky' })).toBe(2);
    expect(
      sample(text, 'switchboard_outbound_requests_total', { client: 'flaky', outcome: '5xx' }),
    ).toBe(3);
    expect(
      sample(text, 'switchboard_outbound_requests_total', {
        client: 'flaky',
        outcome: 'circuit_open',
      }),
    ).toBe(1);
    client.shutdown();
    text = (await metrics.scrape()).body;
    expect(sample(text, 'switchboard_outbound_breaker_state', { client: 'flaky' })).toBeUndefined();
  });

  test('when an app is built without metrics, then it has no /metrics route', async () => {
    const app = createHttpApp({ logger, routes: () => undefined });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
