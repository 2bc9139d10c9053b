import type { Channel, ChannelModel } from 'amqplib';
import type { Logger } from 'pino';
import type { TopologyDeclaration } from '@switchboard/contracts';
import { isInequivalentArgument, migrateClassicQueues } from './quorum-migration';

/**
 * Declares exchanges, queues and bindings, all durable; idempotent, so every service asserts its
 * own part on every connection. RabbitMQ refuses a queue re-declared with other arguments, which
 * is why the arguments live once, in contracts.
 */
export async function assertTopology(
  channel: Channel,
  declarations: readonly TopologyDeclaration[],
): Promise<void> {
  const byKind = (kind: TopologyDeclaration['kind']) =>
    declarations.filter((item) => item.kind === kind);
  for (const item of byKind('exchange')) {
    if (item.kind === 'exchange')
      await channel.assertExchange(item.name, item.type, { durable: true });
  }
  for (const item of byKind('queue')) {
    if (item.kind === 'queue') {
      await channel.assertQueue(item.name, { durable: true, arguments: { ...item.arguments } });
    }
  }
  for (const item of byKind('binding')) {
    if (item.kind === 'binding')
      await channel.bindQueue(item.queue, item.exchange, item.routingKey);
  }
}

/**
 * assertTopology on a channel of its own; when a queue still exists as the classic queue an
 * earlier release declared, migrates the queues to quorum queues first and declares again.
 */
export async function declareTopology(
  connection: ChannelModel,
  declarations: readonly TopologyDeclaration[],
  logger: Logger,
): Promise<void> {
  const declareOnce = async () => {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined); // the rejected call below carries the error
    try {
      await assertTopology(channel, declarations);
    } finally {
      await channel.close().catch(() => undefined);
    }
  };
  try {
    await declareOnce();
  } catch (error) {
    if (!isInequivalentArgument(error)) throw error;
    await migrateClassicQueues(connection, declarations, logger);
    await declareOnce();
  }
}
