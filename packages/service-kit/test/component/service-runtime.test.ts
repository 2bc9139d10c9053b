import { baseConfigSchema, startServiceRuntime, type ServiceConfig } from '../../src';
import { connect } from 'amqplib';
import { QUEUES, WEBHOOK_RETRY_STEPS } from '@switchboard/contracts';
import {
  AMQP_URL,
  isolatedAmqpUrl,
  MONGODB_URL,
  dropDatabasesWithPrefix,
  randomSecret,
  uniquePrefix,
} from '../../../../test/support/test-infra';

const prefix = uniquePrefix('runtime');
const config: ServiceConfig = {
  ...baseConfigSchema.parse({
    MONGODB_URL,
    AMQP_URL,
    MONGODB_DB_PREFIX: prefix,
    INTERNAL_API_SECRET: randomSecret(),
    LOG_LEVEL: 'silent',
    SHUTDOWN_TIMEOUT_MS: '5000',
  }),
  PORT: 0,
};

afterAll(() => dropDatabasesWithPrefix(prefix));

describe('startServiceRuntime', () => {
  test('when started, then it is ready with its own database and the broker, and internal routes need the secret', async () => {
    const service = await startServiceRuntime({
      service: 'inbound',
      config,
      setup: () => ({}),
    });
    try {
      const ready = await fetch(`${service.url}/readyz`);
      expect(await ready.json()).toEqual({
        status: 'ok',
        checks: { shutdown: true, database: true, broker: true },
      });
      expect(service.db.name).toBe(`${prefix}inbound`);
      expect((await fetch(`${service.url}/internal/info`)).status).toBe(403);
      const info = await fetch(`${service.url}/internal/info`, {
        headers: { 'x-internal-secret': config.INTERNAL_API_SECRET },
      });
      expect(await info.json()).toEqual({ status: 'success', service: 'inbound' });
    } finally {
      await service.stop();
    }
  });

  test('when a broker-using service starts, then its part of the shared topology exists', async () => {
    const vhost = await isolatedAmqpUrl('runtime');
    const service = await startServiceRuntime({
      service: 'webhooks',
      config: { ...config, AMQP_URL: vhost.url },
      setup: () => ({}),
    });
    const connection = await connect(vhost.url);
    try {
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      await channel.checkQueue(QUEUES.webhooksDeliveries);
      await channel.checkQueue(WEBHOOK_RETRY_STEPS[0].queue);
      await channel.checkExchange('svc.webhooks.retry');
      // Re-declaring with other arguments is refused: the arguments really are the contract's.
      await expect(
        channel.assertQueue(WEBHOOK_RETRY_STEPS[0].queue, {
          durable: true,
          arguments: { 'x-message-ttl': 1 },
        }),
      ).rejects.toThrow(/PRECONDITION_FAILED/);
    } finally {
      await connection.close().catch(() => undefined);
      await service.stop();
      await vhost.drop();
    }
  });

  test('when stopped during a request, then the request still completes before the server closes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const service = await startServiceRuntime({
      service: 'webhooks',
      config,
      useBroker: false,
      publicFacing: true,
      setup: () => ({
        routes: (router) => {
          router.get('/slow', async (_req, res) => {
            await gate;
            res.json({ done: true });
          });
        },
      }),
    });
    const inFlight = fetch(`${service.url}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = service.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ done: true });
    await stopped;
    await expect(fetch(`${service.url}/livez`)).rejects.toThrow();
  });
});
