import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { QUEUE_DELIVERY_LIMIT, workQueueArguments } from '@switchboard/contracts';
import { z } from 'zod';
import {
  Broker,
  PermanentError,
  RetryLaterError,
  type BrokerOptions,
  type MessageContext,
  type MessageHandler,
  type MessageOutcome,
} from '../../src/broker';
import { createLogger } from '../../src/logger';
import { AMQP_URL, rabbitAdmin } from '../../../../test/support/test-infra';

const logger = createLogger('broker-test', 'silent');
const OrderSchema = z.object({ orderId: z.string(), quantity: z.number().int() });
type Order = z.infer<typeof OrderSchema>;

let admin: ChannelModel;
let adminChannel: Channel;
const brokers: Broker[] = [];
const queues: string[] = [];
const exchanges: string[] = [];

beforeAll(async () => {
  admin = await connect(AMQP_URL);
  adminChannel = await admin.createChannel();
});

afterEach(async () => {
  await Promise.all(brokers.splice(0).map((broker) => broker.stop()));
  for (const queue of queues.splice(0)) {
    for (const name of [queue, `${queue}.retry`, `${queue}.dead`]) {
      await adminChannel.deleteQueue(name);
    }
  }
  for (const exchange of exchanges.splice(0)) await adminChannel.deleteExchange(exchange);
});

afterAll(() => admin.close());

/**
 * A fresh exchange and queue, bound on `test.#`, and a broker whose setup declares them: the
 * queue as `queueArguments` say (a classic queue unless told), under the name `id` when given.
 */
function newBroker(
  options: Partial<BrokerOptions> = {},
  queueArguments: Record<string, unknown> = {},
  id = randomBytes(4).toString('hex'),
) {
  const exchange = `test.broker.${id}`;
  const queue = `test.broker.${id}`;
  const connectionName = `broker-test-${id}`;
  if (!queues.includes(queue)) {
    exchanges.push(exchange);
    queues.push(queue);
  }
  const broker = new Broker({
    url: AMQP_URL,
    connectionName,
    logger,
    reconnectDelayMs: { min: 50, max: 200 },
    ...options,
  });
  brokers.push(broker);
  broker.onConnect(async (channel) => {
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertQueue(queue, { durable: true, arguments: queueArguments });
    await channel.bindQueue(queue, exchange, 'test.#');
  });
  return { broker, exchange, queue, connectionName, id };
}

async function startConsuming(handler: MessageHandler<Order>, options = {}) {
  const setup = newBroker();
  await setup.broker.start();
  await setup.broker.consume(setup.queue, handler, {
    schema: OrderSchema,
    prefetch: 5,
    retryDelayMs: 100,
    ...options,
  });
  return setup;
}

type OutcomeEvent = 'message:acked' | 'message:retried' | 'message:parked';

/** Resolves with the outcome the broker reports for `messageId`, so no test sleeps on a guess. */
function nextOutcome(broker: Broker, event: OutcomeEvent, messageId: string, timeoutMs = 5_000) {
  return new Promise<MessageOutcome>((resolve, reject) => {
    const listener = (outcome: MessageOutcome) => {
      if (outcome.messageId !== messageId) return;
      clearTimeout(timer);
      broker.off(event, listener);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      broker.off(event, listener);
      reject(new Error(`no ${event} for ${messageId} within ${timeoutMs} ms`));
    }, timeoutMs);
    broker.on(event, listener);
  });
}

const nextEvent = (broker: Broker, event: 'connected' | 'disconnected') =>
  new Promise<void>((resolve) => broker.once(event, () => resolve()));

async function readParked(queue: string) {
  const message = await adminChannel.get(`${queue}.dead`, { noAck: true });
  if (!message) throw new Error(`nothing parked in ${queue}.dead`);
  return message;
}

const readyCount = async (queue: string) => (await adminChannel.checkQueue(queue)).messageCount;

/** Closes our connection, found by its client-provided name, as a broker restart would. */
async function killConnection(connectionName: string): Promise<void> {
  await rabbitAdmin.closeConnections((connection) => connection.connectionName === connectionName);
}

describe('Broker publishing', () => {
  test('when a message is published to a bound queue, then the consumer gets it with its context and acks it', async () => {
    const received: Array<{ body: Order; context: MessageContext }> = [];
    const { broker, exchange, queue } = await startConsuming(async (body, context) => {
      received.push({ body, context });
    });
    const messageId = randomUUID();
    const acked = nextOutcome(broker, 'message:acked', messageId);

    await broker.publish(
      exchange,
      'test.created',
      { orderId: 'o-1', quantity: 2 },
      {
        messageId,
        headers: { traceparent: '00-abc-def-01' },
      },
    );

    expect(await acked).toEqual({ queue, messageId, attempt: 1 });
    expect(received).toEqual([
      {
        body: { orderId: 'o-1', quantity: 2 },
        context: {
          messageId,
          headers: { traceparent: '00-abc-def-01' },
          routingKey: 'test.created',
          redelivered: false,
          attempt: 1,
        },
      },
    ]);
    await broker.stop();
    expect(await readyCount(queue)).toBe(0);
  });

  test('when a message is published to an exchange with no binding for it, then the publish rejects as unroutable', async () => {
    const { broker, exchange } = newBroker();
    await broker.start();

    await expect(
      broker.publish(exchange, 'nobody.listens', { orderId: 'o-1' }, { messageId: randomUUID() }),
    ).rejects.toMatchObject({ name: 'PublishError', kind: 'unroutable' });
    expect(broker.isConnected()).toBe(true);
  });

  test('when a publish goes to an exchange that does not exist, then it rejects and the next publish still goes out', async () => {
    const { broker, exchange, queue } = newBroker();
    await broker.start();

    await expect(
      broker.publish(`${exchange}.missing`, 'test.created', {}, { messageId: randomUUID() }),
    ).rejects.toMatchObject({ name: 'PublishError' });
    await broker.publish(exchange, 'test.created', { orderId: 'o-1' }, { messageId: randomUUID() });
    expect(await readyCount(queue)).toBe(1);
  });

  test('when the broker is not connected, then a publish waits at most publishTimeoutMs and rejects', async () => {
    const { broker, exchange } = newBroker({ publishTimeoutMs: 300 });
    const started = Date.now();

    await expect(
      broker.publish(exchange, 'test.created', {}, { messageId: randomUUID() }),
    ).rejects.toMatchObject({ kind: 'not_connected' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('when RabbitMQ cannot be reached at start, then start rejects after startTimeoutMs', async () => {
    const { broker } = newBroker({ url: 'amqp://127.0.0.1:1', startTimeoutMs: 500 });

    await expect(broker.start()).rejects.toThrow(/within 500 ms/);
    expect(broker.isConnected()).toBe(false);
  });

  test('when AMQP_URL lists nodes and some refuse, then the broker connects through one that answers, whichever it starts with', async () => {
    // Port 1 refuses at once, like a cluster node that is down.
    const url = `amqp://127.0.0.1:1,${AMQP_URL},amqp://127.0.0.1:1`;
    for (let start = 0; start < 4; start++) {
      const { broker, exchange, queue } = newBroker({ url, startTimeoutMs: 10_000 });
      await broker.start();
      expect(broker.isConnected()).toBe(true);
      await broker.publish(exchange, 'test.created', { n: start }, { messageId: randomUUID() });
      expect(await readyCount(queue)).toBe(1);
      await broker.stop();
    }
  });
});

describe('Broker consuming', () => {
  test.each([
    ['not JSON', Buffer.from('{"orderId": '), /^unparsable JSON/],
    ['invalid against the schema', Buffer.from('{"orderId": 7}'), /^invalid message: orderId: /],
  ])(
    'when a message is %s, then it is parked in <queue>.dead with the reason and never handled or redelivered',
    async (_case, content, reason) => {
      const handler = jest.fn(async () => undefined);
      const { broker, queue } = await startConsuming(handler);
      const messageId = randomUUID();
      const parked = nextOutcome(broker, 'message:parked', messageId);

      adminChannel.sendToQueue(queue, content, { messageId, persistent: true });

      expect(await parked).toMatchObject({ queue, messageId, attempt: 1, reason });
      const dead = await readParked(queue);
      expect(dead.content).toEqual(content);
      expect(dead.properties.messageId).toBe(messageId);
      expect(dead.properties.headers).toMatchObject({
        'x-dead-reason': expect.stringMatching(reason),
        'x-dead-queue': queue,
        'x-attempts': 1,
        'x-dead-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      await broker.stop();
      expect(handler).not.toHaveBeenCalled();
      expect(await readyCount(queue)).toBe(0);
    },
  );

  test('when a handler fails transiently twice and then succeeds, then the message is acked on attempt 3', async () => {
    const attempts: Array<Pick<MessageContext, 'attempt' | 'routingKey'>> = [];
    const { broker, exchange, queue } = await startConsuming(
      async (_body, { attempt, routingKey }) => {
        attempts.push({ attempt, routingKey });
        if (attempt < 3) throw new Error('database unavailable');
      },
    );
    const messageId = randomUUID();
    const retried: MessageOutcome[] = [];
    broker.on('message:retried', (outcome) => retried.push(outcome));
    const acked = nextOutcome(broker, 'message:acked', messageId);

    await broker.publish(exchange, 'test.created', { orderId: 'o-2', quantity: 1 }, { messageId });

    expect(await acked).toEqual({ queue, messageId, attempt: 3 });
    expect(retried.map(({ attempt, reason }) => ({ attempt, reason }))).toEqual([
      { attempt: 1, reason: 'database unavailable' },
      { attempt: 2, reason: 'database unavailable' },
    ]);
    // The retry comes back through the default exchange; the handler still sees the first key.
    expect(attempts).toEqual([1, 2, 3].map((attempt) => ({ attempt, routingKey: 'test.created' })));
    await broker.stop();
    expect(await readyCount(queue)).toBe(0);
    expect(await readyCount(`${queue}.dead`)).toBe(0);
  });

  test('when a handler always fails, then the message is parked after maxAttempts with x-attempts', async () => {
    const handler = jest.fn(async () => {
      throw new Error('remote keeps timing out');
    });
    const { broker, exchange, queue } = await startConsuming(handler, { maxAttempts: 3 });
    const messageId = randomUUID();
    const parked = nextOutcome(broker, 'message:parked', messageId);

    await broker.publish(exchange, 'test.created', { orderId: 'o-3', quantity: 1 }, { messageId });

    expect(await parked).toEqual({
      queue,
      messageId,
      attempt: 3,
      reason: 'remote keeps timing out',
    });
    expect(handler).toHaveBeenCalledTimes(3);
    const dead = await readParked(queue);
    expect(JSON.parse(dead.content.toString())).toEqual({ orderId: 'o-3', quantity: 1 });
    expect(dead.properties).toMatchObject({ messageId, contentType: 'application/json' });
    expect(dead.properties.headers).toMatchObject({
      'x-dead-reason': 'remote keeps timing out',
      'x-dead-queue': queue,
      'x-attempts': 3,
      'x-original-routing-key': 'test.created',
    });
  });

  test('when a handler throws a PermanentError, then the message is parked at once', async () => {
    const handler = jest.fn(async () => {
      throw new PermanentError('order o-4 does not exist', { reason: 'unknown_order' });
    });
    const { broker, exchange, queue } = await startConsuming(handler);
    const messageId = randomUUID();
    const parked = nextOutcome(broker, 'message:parked', messageId);

    await broker.publish(exchange, 'test.created', { orderId: 'o-4', quantity: 1 }, { messageId });

    expect(await parked).toEqual({ queue, messageId, attempt: 1, reason: 'unknown_order' });
    expect(handler).toHaveBeenCalledTimes(1);
    expect((await readParked(queue)).properties.headers).toMatchObject({
      'x-dead-reason': 'unknown_order',
      'x-attempts': 1,
    });
  });
});

describe('Broker poison messages (quorum work queue)', () => {
  test('when every consumer that takes a message dies before settling it, then after the delivery limit RabbitMQ parks it', async () => {
    const id = randomBytes(4).toString('hex');
    const quorumBroker = () =>
      newBroker({ drainTimeoutMs: 50 }, workQueueArguments(`test.broker.${id}.dead`), id);
    const { broker: producer, exchange, queue } = quorumBroker();
    await producer.start();
    const messageId = randomUUID();
    const body = { orderId: 'o-poison', quantity: 1 };
    await producer.publish(exchange, 'test.created', body, { messageId });
    await producer.stop();

    // Each crash: a consumer takes the message, its handler never ends, its process goes away.
    let deliveries = 0;
    for (let crash = 0; crash <= QUEUE_DELIVERY_LIMIT; crash++) {
      const { broker } = quorumBroker();
      const taken = new Promise<void>((resolve) => {
        void broker.consume(
          queue,
          async () => {
            deliveries++;
            resolve();
            await new Promise(() => undefined);
          },
          { schema: OrderSchema, prefetch: 1 },
        );
      });
      await broker.start();
      await taken;
      await broker.stop();
    }

    expect(deliveries).toBe(QUEUE_DELIVERY_LIMIT + 1);
    let parked: GetMessage | false = false;
    for (let wait = 0; wait < 50 && !parked; wait++) {
      parked = await adminChannel.get(`${queue}.dead`, { noAck: true });
      if (!parked) await sleep(100);
    }
    if (!parked) throw new Error('the poison message was not parked');
    expect(JSON.parse(parked.content.toString())).toEqual(body);
    expect(parked.properties.messageId).toBe(messageId);
    const [death] = (parked.properties.headers?.['x-death'] ?? []) as unknown[];
    expect(death).toMatchObject({ reason: 'delivery_limit', queue });
    expect(await readyCount(queue)).toBe(0);
  }, 60_000);
});

describe('Broker postponing (RetryLaterError)', () => {
  test('when a handler says retry later more often than maxAttempts, then no attempt is spent until the postponements run out', async () => {
    const seen: number[] = [];
    const { broker, exchange, queue } = await startConsuming(
      async (_body, { attempt }) => {
        seen.push(attempt);
        if (seen.length <= 4) throw new RetryLaterError('held by another process');
      },
      { maxAttempts: 2, maxPostponements: 10 },
    );
    const messageId = randomUUID();
    const acked = nextOutcome(broker, 'message:acked', messageId);

    await broker.publish(exchange, 'test.created', { orderId: 'o-5', quantity: 1 }, { messageId });

    expect(await acked).toEqual({ queue, messageId, attempt: 1 });
    expect(seen).toEqual([1, 1, 1, 1, 1]);
    await broker.stop();
    expect(await readyCount(`${queue}.dead`)).toBe(0);
  });

  test('when the postponements run out, then the retries spend attempts and the last one parks the message', async () => {
    const handler = jest.fn(async () => {
      throw new RetryLaterError('held by another process');
    });
    const { broker, exchange, queue } = await startConsuming(handler, {
      maxAttempts: 2,
      maxPostponements: 3,
    });
    const messageId = randomUUID();
    const parked = nextOutcome(broker, 'message:parked', messageId);

    await broker.publish(exchange, 'test.created', { orderId: 'o-6', quantity: 1 }, { messageId });

    expect(await parked).toMatchObject({ attempt: 2, reason: 'held by another process' });
    expect(handler).toHaveBeenCalledTimes(5);
    expect((await readParked(queue)).properties.headers).toMatchObject({
      'x-attempts': 2,
      'x-postponed': 3,
    });
  });
});

describe('Broker connection', () => {
  test('when the connection is killed, then the broker reconnects, the consumer resumes and publishes are delivered', async () => {
    const handled: string[] = [];
    const { broker, exchange, connectionName } = await startConsuming(async (body) => {
      handled.push(body.orderId);
    });
    const disconnected = nextEvent(broker, 'disconnected');
    const reconnected = nextEvent(broker, 'connected');

    await killConnection(connectionName);
    await disconnected;
    expect(broker.isConnected()).toBe(false);
    // Published while down: waits for the new connection instead of failing.
    const duringId = randomUUID();
    const duringAcked = nextOutcome(broker, 'message:acked', duringId);
    const during = broker.publish(
      exchange,
      'test.created',
      { orderId: 'during', quantity: 1 },
      {
        messageId: duringId,
      },
    );
    await reconnected;
    expect(broker.isConnected()).toBe(true);
    await during;
    await duringAcked;

    const afterId = randomUUID();
    const afterAcked = nextOutcome(broker, 'message:acked', afterId);
    await broker.publish(
      exchange,
      'test.created',
      { orderId: 'after', quantity: 1 },
      {
        messageId: afterId,
      },
    );
    await afterAcked;
    expect(handled).toEqual(['during', 'after']);
  }, 30_000);

  test('when messages finish out of order, then each is acked once: one still running does not hold the acks (and the prefetch window) of those after it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    const { broker, exchange, queue } = await startConsuming(async (body) => {
      if (body.orderId === 'o-0') await held;
      handled.push(body.orderId);
    });
    const ids = Array.from({ length: 20 }, () => randomUUID());
    const acked = ids.map((messageId) => nextOutcome(broker, 'message:acked', messageId));
    for (const [index, messageId] of ids.entries()) {
      await broker.publish(
        exchange,
        'test.created',
        { orderId: `o-${index}`, quantity: 1 },
        { messageId },
      );
    }
    // With a prefetch of 5, the other 19 only get through if their acks went out around o-0.
    await Promise.all(acked.slice(1));
    expect(handled).toHaveLength(19);
    release();
    await acked[0];
    await broker.stop();
    expect(await readyCount(queue)).toBe(0);
    expect(handled).toHaveLength(20);
  });

  test('when stopped during a handler, then stop waits for it, the message is acked and nothing reconnects', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
    const { broker, exchange, queue } = await startConsuming(async () => {
      entered();
      await gate;
    });
    const messageId = randomUUID();
    const acked = nextOutcome(broker, 'message:acked', messageId);
    await broker.publish(exchange, 'test.created', { orderId: 'o-5', quantity: 1 }, { messageId });
    await handlerEntered;

    let stopped = false;
    const stopping = broker.stop().then(() => (stopped = true));
    await sleep(300);
    expect(stopped).toBe(false);
    release();
    await stopping;

    expect(await acked).toMatchObject({ messageId, attempt: 1 });
    expect(await readyCount(queue)).toBe(0);
    expect(broker.isConnected()).toBe(false);
    await expect(
      broker.publish(exchange, 'test.created', {}, { messageId: randomUUID() }),
    ).rejects.toMatchObject({ kind: 'stopped' });
  });
});
