import { setTimeout as sleep } from 'node:timers/promises';
import type { Channel, ChannelModel, GetMessage, Options } from 'amqplib';
import type { Logger } from 'pino';
import type {
  BindingDeclaration,
  QueueDeclaration,
  TopologyDeclaration,
} from '@switchboard/contracts';

/** Held (as an exclusive queue: it vanishes with its connection) by the one process migrating. */
export const MIGRATION_LOCK_QUEUE = 'switchboard.queue-migration.lock';
const LOCK_WAIT_MS = 120_000;
const MOVE_BATCH = 200;
const ignore = () => undefined;

/**
 * RabbitMQ's answer to declaring a queue with other arguments than it has, e.g. as quorum a
 * queue that exists as a classic one (the argument it names first may be another one).
 */
export const isInequivalentArgument = (error: unknown): boolean =>
  error instanceof Error && /PRECONDITION_FAILED - inequivalent arg/.test(error.message);

/**
 * What the previous release declared: classic queues, with no arguments but a delay queue's TTL
 * and dead-letter target.
 */
const DELAY_ARGUMENTS = ['x-message-ttl', 'x-dead-letter-exchange', 'x-dead-letter-routing-key'];
const classicArguments = (queue: QueueDeclaration) => ({
  ...(queue.role === 'retry'
    ? Object.fromEntries(
        Object.entries(queue.arguments).filter(([name]) => DELAY_ARGUMENTS.includes(name)),
      )
    : {}),
  'x-queue-type': 'classic',
});

/** Where a queue's messages wait while it is re-created as a quorum queue. */
export const migratingQueueFor = (queue: string): string => `${queue}.migrating`;

/**
 * Re-creates as quorum queues, under the same names, the queues of `declarations` that an
 * earlier release declared as classic queues (RabbitMQ cannot change a queue's type, and
 * refuses to redeclare it with PRECONDITION_FAILED). Per queue: a `<queue>.migrating` quorum
 * queue takes its bindings and its messages, the classic queue is deleted and declared again as
 * a quorum queue, then gets its bindings and the messages back. Parking queues go first and
 * work queues last, so that the delay queues, already quorum, hold expiring retries
 * (at-least-once dead-lettering) while their work queue is briefly missing. A message
 * published to a missing queue through the default exchange comes back unroutable, and the
 * publisher keeps it. One process of the vhost migrates at a time; a process that died midway
 * leaves `<queue>.migrating`, which the next run finishes.
 */
export async function migrateClassicQueues(
  connection: ChannelModel,
  declarations: readonly TopologyDeclaration[],
  logger: Logger,
): Promise<void> {
  const order = { dead: 0, retry: 1, work: 2 } as const;
  const queues = declarations
    .filter((item): item is QueueDeclaration => item.kind === 'queue')
    .filter((queue) => queue.arguments['x-queue-type'] === 'quorum')
    .sort((a, b) => order[a.role] - order[b.role]);
  const bindings = declarations.filter(
    (item): item is BindingDeclaration => item.kind === 'binding',
  );
  const unlock = await takeLock(connection);
  try {
    for (const queue of queues) {
      const bindingsOf = bindings.filter((binding) => binding.queue === queue.name);
      await migrateQueue(connection, queue, bindingsOf, logger);
    }
  } finally {
    await unlock();
  }
}

async function migrateQueue(
  connection: ChannelModel,
  queue: QueueDeclaration,
  bindings: readonly BindingDeclaration[],
  logger: Logger,
): Promise<void> {
  const temporary = migratingQueueFor(queue.name);
  const log = logger.child({ queue: queue.name });
  if (await isClassic(connection, queue)) {
    log.warn('queue is a classic queue; re-creating it as a quorum queue');
    const moved = await onConfirmChannel(connection, async (channel) => {
      await channel.assertQueue(temporary, { durable: true, arguments: { ...queue.arguments } });
      // Bound before the old queue is unbound: a message may reach both (consumers deduplicate),
      // never neither.
      for (const b of bindings) await channel.bindQueue(temporary, b.exchange, b.routingKey);
      for (const b of bindings) await channel.unbindQueue(queue.name, b.exchange, b.routingKey);
      const count = await moveMessages(channel, queue.name, temporary);
      await channel.deleteQueue(queue.name);
      return count;
    });
    log.info({ moved }, 'classic queue emptied and deleted');
  }
  if (!(await exists(connection, temporary))) return;
  // A new channel: RabbitMQ 3.10 breaks the connection of a channel that used the classic queue
  // and then publishes to the quorum queue of the same name.
  const moved = await onConfirmChannel(connection, async (channel) => {
    await channel.assertQueue(queue.name, { durable: true, arguments: { ...queue.arguments } });
    for (const b of bindings) await channel.bindQueue(queue.name, b.exchange, b.routingKey);
    for (const b of bindings) await channel.unbindQueue(temporary, b.exchange, b.routingKey);
    const count = await moveMessages(channel, temporary, queue.name);
    await channel.deleteQueue(temporary);
    return count;
  });
  log.warn({ moved }, 'queue re-created as a quorum queue, its messages kept');
}

type ConfirmChannel = Awaited<ReturnType<ChannelModel['createConfirmChannel']>>;

async function onConfirmChannel<T>(
  connection: ChannelModel,
  work: (channel: ConfirmChannel) => Promise<T>,
): Promise<T> {
  const channel = await connection.createConfirmChannel();
  channel.on('error', ignore); // the rejected call carries the error
  try {
    return await work(channel);
  } finally {
    await channel.close().catch(ignore);
  }
}

/** Moves every ready message from `from` to `to`, each acked only once `to` has confirmed it. */
async function moveMessages(channel: ConfirmChannel, from: string, to: string): Promise<number> {
  let moved = 0;
  for (;;) {
    const batch: GetMessage[] = [];
    while (batch.length < MOVE_BATCH) {
      const message = await channel.get(from, { noAck: false });
      if (message === false) break;
      batch.push(message);
      channel.sendToQueue(to, message.content, publishOptions(message));
    }
    if (batch.length === 0) return moved;
    await channel.waitForConfirms();
    channel.ack(batch[batch.length - 1]!, true);
    moved += batch.length;
  }
}

/** The message's own properties (RabbitMQ refuses a user id other than the connection's). */
function publishOptions(message: GetMessage): Options.Publish {
  const { userId: _userId, clusterId: _clusterId, ...properties } = message.properties;
  const defined = Object.entries(properties).filter(([, value]) => value !== undefined);
  return { ...(Object.fromEntries(defined) as Options.Publish), persistent: true };
}

/**
 * Declares the queue as the topology wants it: false when that succeeded (or created it); true
 * when it exists as the classic queue the previous release declared; the refusal otherwise.
 */
async function isClassic(connection: ChannelModel, queue: QueueDeclaration): Promise<boolean> {
  const declare = (args: Record<string, unknown>) =>
    onThrowawayChannel(connection, (channel) =>
      channel.assertQueue(queue.name, { durable: true, arguments: args }),
    );
  try {
    await declare({ ...queue.arguments });
    return false;
  } catch (error) {
    if (!isInequivalentArgument(error)) throw error;
    const classic = await declare(classicArguments(queue)).then(
      () => true,
      () => false,
    );
    if (classic) return true;
    throw error;
  }
}

async function exists(connection: ChannelModel, queue: string): Promise<boolean> {
  return onThrowawayChannel(connection, async (channel) => {
    try {
      await channel.checkQueue(queue);
      return true;
    } catch (error) {
      if ((error as { code?: number }).code === 404) return false;
      throw error;
    }
  });
}

/** A failed declaration closes its channel, so each check gets a channel of its own. */
async function onThrowawayChannel<T>(
  connection: ChannelModel,
  work: (channel: Channel) => Promise<T>,
): Promise<T> {
  const channel = await connection.createChannel();
  channel.on('error', ignore);
  try {
    return await work(channel);
  } finally {
    await channel.close().catch(ignore);
  }
}

async function takeLock(connection: ChannelModel): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const channel = await connection.createChannel();
    channel.on('error', ignore);
    try {
      await channel.assertQueue(MIGRATION_LOCK_QUEUE, { exclusive: true, durable: false });
      return async () => {
        await channel.deleteQueue(MIGRATION_LOCK_QUEUE).catch(ignore);
        await channel.close().catch(ignore);
      };
    } catch (error) {
      await channel.close().catch(ignore);
      // 405 RESOURCE_LOCKED: another process holds the lock.
      if ((error as { code?: number }).code !== 405 || Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}
