import {
  BROKER_TOPOLOGY,
  EXCHANGES,
  QUEUES,
  QUEUE_DELIVERY_LIMIT,
  ROUTING_KEYS,
  SERVICE_NAMES,
  LIVE_EVENT_NAMES,
  WEBHOOK_RETRY_STEPS,
  deadQueueFor,
  eventRoutingKey,
  retryQueueFor,
  topologyFor,
  type BindingDeclaration,
  type ExchangeDeclaration,
  type QueueDeclaration,
} from '../../src';

const exchanges = BROKER_TOPOLOGY.filter((i): i is ExchangeDeclaration => i.kind === 'exchange');
const queues = BROKER_TOPOLOGY.filter((i): i is QueueDeclaration => i.kind === 'queue');
const bindings = BROKER_TOPOLOGY.filter((i): i is BindingDeclaration => i.kind === 'binding');
const queueNames = new Set(queues.map((q) => q.name));
const bindingsOf = (queue: string) => bindings.filter((b) => b.queue === queue);

describe('BROKER_TOPOLOGY', () => {
  test('when every binding is checked, then it names a declared exchange and a declared queue', () => {
    const exchangeNames = new Set(exchanges.map((e) => e.name));
    for (const binding of bindings) {
      expect(exchangeNames).toContain(binding.exchange);
      expect(queueNames).toContain(binding.queue);
    }
  });

  test('when names are counted, then no exchange, queue or binding is declared twice', () => {
    const keys = BROKER_TOPOLOGY.map((i) =>
      i.kind === 'binding' ? `b:${i.exchange}:${i.queue}:${i.routingKey}` : `${i.kind}:${i.name}`,
    );
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('when the named exchanges and queues are looked up, then each one is declared', () => {
    expect(exchanges.map((e) => e.name).sort()).toEqual(Object.values(EXCHANGES).sort());
    for (const queue of Object.values(QUEUES)) expect(queueNames).toContain(queue);
  });

  test('when a queue dead-letters, then its target is a declared queue via the default exchange', () => {
    for (const queue of queues.filter((q) => 'x-dead-letter-routing-key' in q.arguments)) {
      expect(queue.arguments['x-dead-letter-exchange']).toBe('');
      expect(queueNames).toContain(queue.arguments['x-dead-letter-routing-key']);
    }
  });

  test('when a work queue is declared, then its dead parking queue is declared by the same owner', () => {
    for (const queue of queues.filter((q) => q.role === 'work')) {
      const dead = queues.find((q) => q.name === deadQueueFor(queue.name));
      expect(dead).toMatchObject({ role: 'dead', owner: queue.owner });
    }
  });

  test('when any queue is declared, then it is a replicated quorum queue', () => {
    for (const queue of queues) expect(queue.arguments['x-queue-type']).toBe('quorum');
  });

  test('when a work queue gets a message back unacked too often, then RabbitMQ parks it in its dead queue, at least once', () => {
    for (const queue of queues.filter((q) => q.role === 'work')) {
      expect(queue.arguments).toMatchObject({
        'x-delivery-limit': QUEUE_DELIVERY_LIMIT,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': deadQueueFor(queue.name),
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      });
    }
  });

  test('when a consumer retry queue expires a message, then it goes back to its own work queue', () => {
    const retry = queues.find((q) => q.name === retryQueueFor(QUEUES.messagingCommands));
    expect(retry?.arguments['x-dead-letter-routing-key']).toBe(QUEUES.messagingCommands);
  });

  test('when webhook retries wait, then the 10, 30 and 60 s queues lead back to webhooks.deliveries', () => {
    expect(WEBHOOK_RETRY_STEPS.map((s) => s.delayMs)).toEqual([10_000, 30_000, 60_000]);
    for (const step of WEBHOOK_RETRY_STEPS) {
      const queue = queues.find((q) => q.name === step.queue);
      expect(queue?.arguments).toEqual({
        'x-queue-type': 'quorum',
        'x-message-ttl': step.delayMs,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': QUEUES.webhooksDeliveries,
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      });
      expect(bindingsOf(step.queue)).toEqual([
        expect.objectContaining({ exchange: EXCHANGES.webhooksRetry, routingKey: step.routingKey }),
      ]);
    }
  });

  test('when provider events and commands are routed, then every routing key reaches messaging', () => {
    const keys = (queue: string) => bindingsOf(queue).map((b) => b.routingKey);
    expect(keys(QUEUES.messagingProviderEvents).sort()).toEqual(
      Object.values(ROUTING_KEYS.provider).sort(),
    );
    expect(keys(QUEUES.messagingCommands).sort()).toEqual(
      Object.values(ROUTING_KEYS.commands).sort(),
    );
  });

  test("when events are published, then webhooks gets all of them and campaign progress the outcome of campaigns' messages only", () => {
    expect(bindingsOf(QUEUES.webhooksEvents).map((b) => b.routingKey)).toEqual(['#']);
    expect(bindingsOf(QUEUES.campaignsEvents).map((b) => b.routingKey)).toEqual([
      'message_sent',
      'message_failed',
      'message_status_updated',
    ]);
  });

  test("when a message's outcome is published, then it is routed by its name if it is a campaign's, qualified as direct otherwise", () => {
    for (const event of ['message_sent', 'message_failed', 'message_status_updated']) {
      expect(eventRoutingKey({ event, campaign_id: 12 })).toBe(event);
      expect(eventRoutingKey({ event })).toBe(`${event}.direct`);
      expect(eventRoutingKey({ event, campaign_id: null })).toBe(`${event}.direct`);
    }
    expect(eventRoutingKey({ event: 'message_received' })).toBe('message_received');
    expect(eventRoutingKey({ event: 'campaign_completed', campaign_id: 12 })).toBe(
      'campaign_completed',
    );
  });

  test("when the console's live events are bound, then each event is taken under its name and any qualifier", () => {
    const live = bindingsOf(QUEUES.gatewayLiveEvents).filter(
      (b) => b.exchange === EXCHANGES.events,
    );
    expect(live.map((b) => b.routingKey)).toEqual(LIVE_EVENT_NAMES.map((name) => `${name}.#`));
  });

  test("when a service's part is taken, then it is self-contained and covers all its queues", () => {
    for (const service of SERVICE_NAMES) {
      const part = topologyFor(service);
      const partExchanges = new Set(part.flatMap((i) => (i.kind === 'exchange' ? [i.name] : [])));
      const partQueues = new Set(part.flatMap((i) => (i.kind === 'queue' ? [i.name] : [])));
      for (const item of part) {
        if (item.kind === 'binding') {
          expect(partExchanges).toContain(item.exchange);
          expect(partQueues).toContain(item.queue);
        }
      }
      expect([...partQueues].sort()).toEqual(
        queues
          .filter((q) => q.owner === service)
          .map((q) => q.name)
          .sort(),
      );
    }
    expect(topologyFor('inbound')).toEqual([expect.objectContaining({ name: EXCHANGES.provider })]);
  });
});
