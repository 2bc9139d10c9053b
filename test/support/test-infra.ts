import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import mongoose from 'mongoose';
import { createRabbitAdmin, managementUrlOf } from '../../scripts/rabbitmq-admin';

export const MONGODB_URL = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017';
export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://127.0.0.1:5672';
/** RabbitMQ's management API (vhosts, queues, connections): RABBITMQ_MANAGEMENT_URL, else beside AMQP_URL. */
export const rabbitAdmin = createRabbitAdmin(managementUrlOf(AMQP_URL));

export const randomSecret = () => randomBytes(24).toString('hex');

/** A database-name prefix of its own, so that test runs never see each other's data. */
export const uniquePrefix = (label: string) => `t_${label}_${randomBytes(4).toString('hex')}_`;

export async function dropDatabasesWithPrefix(prefix: string): Promise<void> {
  const connection = await mongoose.createConnection(MONGODB_URL).asPromise();
  try {
    const admin = connection.db!.admin();
    const { databases } = await admin.listDatabases({ nameOnly: true });
    for (const { name } of databases) {
      if (name.startsWith(prefix)) await connection.useDb(name).dropDatabase();
    }
  } finally {
    await connection.close();
  }
}

export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The first port of `count` consecutive free ports, from a random starting point (within `range`
 * when given, for a process that keeps state per port, so that runs reuse a few).
 */
export async function freePortBlock(
  count: number,
  range?: { from: number; count: number },
): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = range
      ? range.from + Math.floor(Math.random() * (range.count - count + 1))
      : 20_000 + Math.floor(Math.random() * 2_000) * 10;
    const checks = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(base + i)));
    if (checks.every(Boolean)) return base;
  }
  throw new Error(`no block of ${count} free ports found`);
}

/** A response body as a loosely typed object, for tests that assert on a few of its fields. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LooseJson = Record<string, any>;

export async function jsonBody(response: Response): Promise<LooseJson> {
  return (await response.json()) as LooseJson;
}

/**
 * A RabbitMQ virtual host of its own for one test file, so that services started by different
 * test files never consume each other's messages and may declare queues with other arguments.
 * Returns the AMQP URL to use and a function that deletes the vhost.
 */
export async function isolatedAmqpUrl(
  label: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const vhost = uniquePrefix(label).slice(0, -1);
  await rabbitAdmin.addVhost(vhost);
  const url = new URL(AMQP_URL);
  url.pathname = `/${encodeURIComponent(vhost)}`;
  return {
    url: url.toString(),
    drop: async () => {
      await rabbitAdmin.deleteVhost(vhost);
    },
  };
}

/**
 * Contacts written straight into contacts' database as contacts stores them: making thousands
 * one call at a time takes minutes on the local database, and is not what a large-audience test
 * is about.
 */
export function storedContacts(companyId: number, phones: string[], firstId: number) {
  const now = new Date();
  return phones.map((phone, i) => ({
    id: firstId + i,
    company_id: companyId,
    name: `Guest ${i}`,
    phone,
    email: null,
    language: null,
    subscription: 'subscribed',
    group_ids: [],
    custom: {},
    ai_bot_enabled: false,
    created_at: now,
    updated_at: now,
    pending_events: {},
    pending_count: 0,
  }));
}

/** The database commands a process has sent on `collection`, from its `/metrics` (`DB_COMMAND_STATS`). */
export async function dbCommandsOn(metricsUrl: string, collection: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('switchboard_db_commands_total{'))
    .filter((line) => line.includes(`collection="${collection}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}
