import type { Channel } from 'amqplib';
import type { TopologyDeclaration } from '@switchboard/contracts';

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
