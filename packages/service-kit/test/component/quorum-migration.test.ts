import { randomUUID } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import {
  EXCHANGES,
  QUEUES,
  ROUTING_KEYS,
  deadQueueFor,
  retryQueueFor,
  topologyFor,
  type QueueDeclaration,
  type TopologyDeclaration,
} from '@switchboard/contracts';
import { Broker, MIGRATION_LOCK_QUEUE, assertTopology, declareTopology } from '../../src/broker';
import { createLogger } from '../../src/logger';
import { isolatedAmqpUrl, rabbitAdmin } from '../../../../test/support/test-infra';

const logger = createLogger('quorum-migration-test', process.env.TEST_LOG ?? 'silent');

/** The topology as the previous release declared it: classic queues, TTL and dead-letter only. */
function classicTopology(declarations: readonly TopologyDeclaration[]): TopologyDeclaration[] {
  const keep = ['x-message-ttl', 'x-dead-letter-exchange', 'x-dead-letter-routing-key'];
  return declarations.map((item) =>
    item.kind === 'queue' && item.role !== 'retry'
      ? { ...item, arguments: {} }
      : item.kind === 'queue'
        ? {
            ...item,
            arguments: Object.fromEntries(
              Object.entries(item.arguments).filter(([name]) => keep.includes(name)),
            ),
          }
        : item,
  );
}

let vhost: Awaited<ReturnType<typeof isolatedAmqpUrl>>;
let admin: ChannelModel;
const brokers: Broker[] = [];

beforeEach(async () => {
  vhost = await isolatedAmqpUrl('quorummig');
  admin = await connect(vhost.url);
});

afterEach(async () => {
  await Promise.all(brokers.splice(0).map((broker) => broker.stop()));
  await admin.close();
  await vhost.drop();
});

async function queueTypes(): Promise<Map<string, string>> {
  const name = decodeURIComponent(new URL(vhost.url).pathname.slice(1));
  const queues = await rabbitAdmin.queues(name);
  return new Map(queues.map((queue) => [queue.name, queue.type]));
}

function startBroker(topology: readonly TopologyDeclaration[]): Promise<void> {
  const broker = new Broker({ url: vhost.url, connectionName: 'migration-test', logger });
  broker.onConnect((_channel, connection) => declareTopology(connection, topology, logger));
  brokers.push(broker);
  return broker.start();
}

describe('declareTopology over queues an earlier release declared as classic queues', () => {
  test('when two replicas start on a classic topology holding messages, then both start, every queue is quorum and no message is lost', async () => {
    const topology = topologyFor('messaging');
    const setup = await admin.createConfirmChannel();
    await assertTopology(setup, classicTopology(topology));
    const work = QUEUES.messagingCommands;
    const waiting = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of waiting) {
      setup.publish(EXCHANGES.commands, ROUTING_KEYS.commands.send, Buffer.from(id), {
        persistent: true,
        messageId: id,
      });
    }
    const retrying = randomUUID();
    setup.sendToQueue(retryQueueFor(work), Buffer.from(retrying), { messageId: retrying });
    const parked = randomUUID();
    setup.sendToQueue(deadQueueFor(work), Buffer.from(parked), { messageId: parked });
    await setup.waitForConfirms();
    await setup.close();

    await Promise.all([startBroker(topology), startBroker(topology)]);

    const types = await queueTypes();
    const declared = topology.filter((item): item is QueueDeclaration => item.kind === 'queue');
    for (const queue of declared) expect(types.get(queue.name)).toBe('quorum');
    expect([...types.keys()].filter((name) => name.endsWith('.migrating'))).toEqual([]);
    expect(types.has(MIGRATION_LOCK_QUEUE)).toBe(false);

    // The waiting commands, and the retried one once its delay is over, reach the work queue;
    // the parked one stays parked; a new command is routed to the quorum queue.
    const channel = await admin.createConfirmChannel();
    const fresh = randomUUID();
    channel.publish(EXCHANGES.commands, ROUTING_KEYS.commands.send, Buffer.from(fresh), {
      persistent: true,
    });
    await channel.waitForConfirms();
    const received: string[] = [];
    await channel.consume(work, (message) => {
      if (message) received.push(message.content.toString());
    });
    const deadline = Date.now() + 20_000;
    while (received.length < 5 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(received.slice(0, 3)).toEqual(waiting);
    expect(received.sort()).toEqual([...waiting, retrying, fresh].sort());
    const dead = await channel.get(deadQueueFor(work), { noAck: true });
    expect(dead && dead.content.toString()).toBe(parked);
  }, 60_000);
});
