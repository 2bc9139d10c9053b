import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import {
  BrokerEventSchema,
  EXCHANGES,
  INTERNAL_SECRET_HEADER,
  orgHeaders,
  type BrokerEvent,
} from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import { webhooksConfigSchema, type WebhooksConfig } from '../../src/config';
import { startService } from '../../src/start-service';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  jsonBody,
  rabbitAdmin,
  randomSecret,
  uniquePrefix,
  type LooseJson,
} from '../../../../test/support/test-infra';

export { brokerEvent } from './events';

/** Shrunk delays so that a whole retry schedule fits in a test. */
export const FAST_ENV = {
  ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_DELAYS: '0.3,0.6,0.9',
  WEBHOOK_TIMEOUT_MS: '1000',
};

export interface Harness {
  service: RunningService<WebhooksConfig>;
  amqpUrl: string;
  vhost: string;
  internalSecret: string;
  /** Calls the webhooks service as the gateway would, for organization `companyId`. */
  api(
    companyId: number,
    path: string,
    init?: { method?: string; body?: unknown },
  ): Promise<ApiAnswer>;
  publish(event: BrokerEvent): Promise<void>;
  publishRaw(
    exchange: string,
    routingKey: string,
    content: Buffer,
    messageId?: string,
  ): Promise<void>;
  channel: ConfirmChannel;
  /** The service's broker connection is closed by the broker, as when RabbitMQ restarts. */
  killBrokerConnection(): Promise<void>;
  restart(env?: Record<string, string | undefined>): Promise<void>;
  stop(): Promise<void>;
}

export interface ApiAnswer {
  status: number;
  body: LooseJson;
}

let companyCounter = 1_000;
/** A company id of its own per test, so tests of one file never see each other's webhooks. */
export const newCompanyId = () => ++companyCounter + Math.floor(Math.random() * 1_000_000);

export function configFor(
  prefix: string,
  amqpUrl: string,
  internalSecret: string,
  /** Overrides; a variable given as undefined takes the service's default. */
  env: Record<string, string | undefined>,
): WebhooksConfig {
  return webhooksConfigSchema.parse({
    PORT: '0',
    MONGODB_URL,
    MONGODB_DB_PREFIX: prefix,
    AMQP_URL: amqpUrl,
    INTERNAL_API_SECRET: internalSecret,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...FAST_ENV,
    ...env,
  });
}

export async function startHarness(
  label: string,
  env: Record<string, string | undefined> = {},
): Promise<Harness> {
  const prefix = uniquePrefix(label);
  const broker = await isolatedAmqpUrl(label);
  const vhost = decodeURIComponent(new URL(broker.url).pathname.slice(1));
  const internalSecret = randomSecret();
  let currentEnv = env;
  let service = await startService(configFor(prefix, broker.url, internalSecret, currentEnv));
  const connection: ChannelModel = await connect(broker.url);
  const channel = await connection.createConfirmChannel();

  const harness: Harness = {
    get service() {
      return service;
    },
    amqpUrl: broker.url,
    vhost,
    internalSecret,
    channel,
    async api(companyId, path, init = {}) {
      const response = await fetch(`${service.url}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          [INTERNAL_SECRET_HEADER]: internalSecret,
          ...orgHeaders({ company_id: companyId, plan: 'standard', plan_started_at: new Date() }),
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return { status: response.status, body: await jsonBody(response) };
    },
    async publish(event) {
      const checked = BrokerEventSchema.parse(event);
      await harness.publishRaw(
        EXCHANGES.events,
        checked.event,
        Buffer.from(JSON.stringify(checked)),
        checked.id,
      );
    },
    async publishRaw(exchange, routingKey, content, messageId = randomUUID()) {
      channel.publish(exchange, routingKey, content, {
        persistent: true,
        messageId,
        contentType: 'application/json',
      });
      await channel.waitForConfirms();
    },
    async killBrokerConnection() {
      await rabbitAdmin.closeConnections(
        (connection) => connection.vhost === vhost && connection.connectionName === 'webhooks',
        { reason: 'test: broker restart' },
      );
    },
    async restart(env2 = currentEnv) {
      await service.stop();
      currentEnv = env2;
      service = await startService(configFor(prefix, broker.url, internalSecret, currentEnv));
    },
    async stop() {
      await service.stop();
      await connection.close().catch(() => undefined);
      await dropDatabasesWithPrefix(prefix);
      await broker.drop();
    },
  };
  return harness;
}

/** Polls until `check` returns something truthy, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Creates a webhook through the service and returns its id and secret. */
export async function createWebhook(
  harness: Harness,
  companyId: number,
  body: { name?: string; url: string; events: string[] },
): Promise<{ id: number; secret: string }> {
  const answer = await harness.api(companyId, '/developer/webhooks', {
    method: 'POST',
    body: { name: 'Receiver', ...body },
  });
  if (answer.status !== 201) throw new Error(`create failed: ${JSON.stringify(answer.body)}`);
  return { id: answer.body.webhook.id as number, secret: answer.body.webhook.secret as string };
}

export async function logsOf(harness: Harness, companyId: number, id: number, limit = 100) {
  const answer = await harness.api(companyId, `/developer/webhooks/${id}/logs?limit=${limit}`);
  return answer.body.logs as LooseJson[];
}
