import { CONSOLE_EXCHANGE } from './events/console-events';
import type { ServiceName } from './service-names';

/** ARCHITECTURE §6. Everything is durable; messages are persistent. */
export const EXCHANGES = {
  provider: 'svc.provider',
  commands: 'svc.commands',
  events: 'svc.events',
  webhooksRetry: 'svc.webhooks.retry',
  /** Events for the console's signed-in users only (console-events.ts), by event name. */
  console: CONSOLE_EXCHANGE,
  /**
   * The gateway's live feed: each batch of events once written to the live event log, with
   * its ids, fanned out to every gateway replica's own temporary queue.
   */
  liveFeed: 'gateway.live-feed',
} as const;
export type ExchangeName = (typeof EXCHANGES)[keyof typeof EXCHANGES];
export type ExchangeType = 'topic' | 'direct' | 'fanout';

export const EXCHANGE_TYPES: Record<ExchangeName, ExchangeType> = {
  [EXCHANGES.provider]: 'topic',
  [EXCHANGES.commands]: 'direct',
  [EXCHANGES.events]: 'topic',
  [EXCHANGES.webhooksRetry]: 'direct',
  [EXCHANGES.console]: 'topic',
  [EXCHANGES.liveFeed]: 'fanout',
};

/**
 * Events on `svc.events` are routed by their event name, e.g. `message_received`; see
 * `eventRoutingKey` for the one qualifier a message's outcome may carry.
 */
export const ROUTING_KEYS = {
  provider: {
    message: 'provider.message',
    status: 'provider.status',
    accountUpdate: 'provider.account_update',
    phoneNumberNameUpdate: 'provider.phone_number_name_update',
    templateStatus: 'provider.template_status',
  },
  commands: {
    send: 'messaging.send',
    sendCampaign: 'messaging.send.campaign',
  },
  webhooksRetry: {
    after10s: '10s',
    after30s: '30s',
    after60s: '60s',
  },
} as const;

export const QUEUES = {
  messagingProviderEvents: 'messaging.provider-events',
  messagingCommands: 'messaging.commands',
  webhooksDeliveries: 'webhooks.deliveries',
  webhooksEvents: 'webhooks.events',
  webhooksRetry10s: 'webhooks.retry.10s',
  webhooksRetry30s: 'webhooks.retry.30s',
  webhooksRetry60s: 'webhooks.retry.60s',
  campaignsEvents: 'campaigns.events',
  campaignsAutomation: 'campaigns.automation',
  gatewayLiveEvents: 'gateway.live-events',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Where a consumer parks a message it gave up on, with the reason in its headers. */
export const deadQueueFor = (queue: string): string => `${queue}.dead`;
/** Where a consumer's own delayed retries wait before dead-lettering back to `queue`. */
export const retryQueueFor = (queue: string): string => `${queue}.retry`;

/** How long a message waits in a consumer's `*.retry` queue before it is redelivered. */
export const CONSUMER_RETRY_DELAY_MS = 5_000;

/**
 * Returns of one message to its work queue without an ack (its consumer crashed, lost its
 * connection or stopped mid-handling) after which RabbitMQ parks it in `*.dead` itself: a
 * message that kills every consumer that takes it must not crash them forever. RabbitMQ 3.x
 * counts every return, prefetched-but-unstarted messages of a lost connection too, so the
 * limit leaves room for several failovers in a row; the consumer's own attempts (handler
 * failures) are counted separately, in the `x-attempts` header.
 */
export const QUEUE_DELIVERY_LIMIT = 10;

/**
 * Every queue is a quorum queue (replicated over the cluster's nodes, RabbitMQ >= 3.10).
 * Dead-lettering is at-least-once: a message leaves its queue only once the target queue has
 * confirmed it (that mode needs `reject-publish` overflow; no queue sets a length limit, so it
 * never rejects anything).
 */
const QUORUM = { 'x-queue-type': 'quorum' } as const;
const deadLetterTo = (target: string) =>
  ({
    'x-dead-letter-exchange': '',
    'x-dead-letter-routing-key': target,
    'x-dead-letter-strategy': 'at-least-once',
    'x-overflow': 'reject-publish',
  }) as const;

/** A consumed queue: a message returned unacked more than the limit is parked in `deadQueue`. */
export const workQueueArguments = (deadQueue: string) =>
  ({ ...QUORUM, 'x-delivery-limit': QUEUE_DELIVERY_LIMIT, ...deadLetterTo(deadQueue) }) as const;
/** A holding queue: messages expire after `ttlMs` and dead-letter to `target` through the default exchange. */
export const delayQueueArguments = (ttlMs: number, target: string) =>
  ({ ...QUORUM, 'x-message-ttl': ttlMs, ...deadLetterTo(target) }) as const;
/** A parking queue: kept until someone looks at it. */
export const parkingQueueArguments = () => ({ ...QUORUM }) as const;

/** The waits between webhook delivery attempts (the published delivery rules), in attempt order. */
export const WEBHOOK_RETRY_STEPS = [
  {
    routingKey: ROUTING_KEYS.webhooksRetry.after10s,
    queue: QUEUES.webhooksRetry10s,
    delayMs: 10_000,
  },
  {
    routingKey: ROUTING_KEYS.webhooksRetry.after30s,
    queue: QUEUES.webhooksRetry30s,
    delayMs: 30_000,
  },
  {
    routingKey: ROUTING_KEYS.webhooksRetry.after60s,
    queue: QUEUES.webhooksRetry60s,
    delayMs: 60_000,
  },
] as const;

export interface ExchangeDeclaration {
  kind: 'exchange';
  name: ExchangeName;
  type: ExchangeType;
  publishers: readonly ServiceName[];
}
export interface QueueDeclaration {
  kind: 'queue';
  name: string;
  /** The service that declares the queue and, for `work` queues, consumes it. */
  owner: ServiceName;
  role: 'work' | 'retry' | 'dead';
  arguments: Readonly<Record<string, string | number | boolean>>;
}
export interface BindingDeclaration {
  kind: 'binding';
  exchange: ExchangeName;
  queue: string;
  routingKey: string;
}
export type TopologyDeclaration = ExchangeDeclaration | QueueDeclaration | BindingDeclaration;

const declareExchange = (name: ExchangeName, publishers: ServiceName[]): ExchangeDeclaration => ({
  kind: 'exchange',
  name,
  type: EXCHANGE_TYPES[name],
  publishers,
});
const bind = (exchange: ExchangeName, queue: string, keys: readonly string[]) =>
  keys.map((routingKey): BindingDeclaration => ({ kind: 'binding', exchange, queue, routingKey }));
const delayQueue = (name: string, owner: ServiceName, ttlMs: number, target: string) =>
  ({
    kind: 'queue',
    name,
    owner,
    role: 'retry',
    arguments: delayQueueArguments(ttlMs, target),
  }) satisfies QueueDeclaration;
/** A consumed queue with its `*.dead` parking queue, and its `*.retry` queue unless it has its own schedule. */
const workQueue = (name: string, owner: ServiceName, withRetry: boolean): QueueDeclaration[] => [
  { kind: 'queue', name, owner, role: 'work', arguments: workQueueArguments(deadQueueFor(name)) },
  ...(withRetry ? [delayQueue(retryQueueFor(name), owner, CONSUMER_RETRY_DELAY_MS, name)] : []),
  {
    kind: 'queue',
    name: deadQueueFor(name),
    owner,
    role: 'dead',
    arguments: parkingQueueArguments(),
  },
];

/**
 * What the console's live updates carry from `svc.events` (with every event of `svc.console`):
 * messages, their statuses and campaigns; an organization's other events are its webhooks'.
 */
export const LIVE_EVENT_NAMES = [
  'message_received',
  'message_sent',
  'message_failed',
  'message_status_updated',
  'campaign_started',
  'campaign_completed',
] as const;

/** What a campaign's progress follows; `message_received` is for automated replies. */
export const PROGRESS_EVENTS = [
  'message_sent',
  'message_failed',
  'message_status_updated',
] as const;

/** The word after the event name of a message outcome that belongs to no campaign. */
export const DIRECT_MESSAGE_QUALIFIER = 'direct';

/**
 * The routing key of an event on `svc.events`: its name, except that the outcome of a message
 * that belongs to no campaign (a send through the API, the inbox or an automated answer) is
 * qualified, `message_sent.direct`. Campaigns binds the bare names and so receives only its
 * own messages' outcomes, four per recipient, instead of every send's: each needless enqueue
 * is a quorum queue's log write. The campaign's events keep the bare name so that a queue
 * still bound as before receives exactly them, whichever side of a rolling deploy publishes;
 * whoever wants every outcome binds `message_sent.#` (which matches both keys) or `#`.
 * Consumers read the event name from the event itself, never from the routing key.
 */
export function eventRoutingKey(event: { event: string; campaign_id?: number | null }): string {
  const direct = (PROGRESS_EVENTS as readonly string[]).includes(event.event) && !event.campaign_id;
  return direct ? `${event.event}.${DIRECT_MESSAGE_QUALIFIER}` : event.event;
}

export const BROKER_TOPOLOGY: readonly TopologyDeclaration[] = [
  declareExchange(EXCHANGES.provider, ['inbound']),
  declareExchange(EXCHANGES.commands, ['campaigns']),
  declareExchange(EXCHANGES.events, ['messaging', 'contacts', 'campaigns']),
  declareExchange(EXCHANGES.webhooksRetry, ['webhooks']),

  ...workQueue(QUEUES.messagingProviderEvents, 'messaging', true),
  ...bind(EXCHANGES.provider, QUEUES.messagingProviderEvents, Object.values(ROUTING_KEYS.provider)),

  ...workQueue(QUEUES.messagingCommands, 'messaging', true),
  ...bind(EXCHANGES.commands, QUEUES.messagingCommands, Object.values(ROUTING_KEYS.commands)),

  ...workQueue(QUEUES.webhooksEvents, 'webhooks', true),
  ...bind(EXCHANGES.events, QUEUES.webhooksEvents, ['#']),

  // Reached through the default exchange, from webhooks.events and from the retry queues.
  ...workQueue(QUEUES.webhooksDeliveries, 'webhooks', false),
  ...WEBHOOK_RETRY_STEPS.flatMap((step) => [
    delayQueue(step.queue, 'webhooks', step.delayMs, QUEUES.webhooksDeliveries),
    ...bind(EXCHANGES.webhooksRetry, step.queue, [step.routingKey]),
  ]),

  // The bare names only: the outcomes of campaigns' messages, never a direct send's.
  ...workQueue(QUEUES.campaignsEvents, 'campaigns', true),
  ...bind(EXCHANGES.events, QUEUES.campaignsEvents, PROGRESS_EVENTS),

  // Automated answers on a queue of their own: a slow answer never holds up progress.
  ...workQueue(QUEUES.campaignsAutomation, 'campaigns', true),
  ...bind(EXCHANGES.events, QUEUES.campaignsAutomation, ['message_received']),

  // Routed by event name; whoever shows the console binds its own queue.
  declareExchange(EXCHANGES.console, ['messaging', 'campaigns']),
  declareExchange(EXCHANGES.liveFeed, ['gateway']),
  // The live event log's writer: one consumer at a time over all gateway replicas (another
  // takes over when it goes), so that ids are given in the order events arrived.
  {
    kind: 'queue',
    name: QUEUES.gatewayLiveEvents,
    owner: 'gateway',
    role: 'work',
    arguments: {
      ...workQueueArguments(deadQueueFor(QUEUES.gatewayLiveEvents)),
      'x-single-active-consumer': true,
    },
  },
  delayQueue(
    retryQueueFor(QUEUES.gatewayLiveEvents),
    'gateway',
    CONSUMER_RETRY_DELAY_MS,
    QUEUES.gatewayLiveEvents,
  ),
  {
    kind: 'queue',
    name: deadQueueFor(QUEUES.gatewayLiveEvents),
    owner: 'gateway',
    role: 'dead',
    arguments: parkingQueueArguments(),
  },
  // `name.#`: every message's outcome, a campaign's (the bare name) and a direct one's.
  ...bind(
    EXCHANGES.events,
    QUEUES.gatewayLiveEvents,
    LIVE_EVENT_NAMES.map((name) => `${name}.#`),
  ),
  ...bind(EXCHANGES.console, QUEUES.gatewayLiveEvents, ['#']),
];

/**
 * The part of the topology one service asserts: the exchanges it publishes to or binds from,
 * the queues it owns, and their bindings.
 */
export function topologyFor(service: ServiceName): TopologyDeclaration[] {
  const queues = BROKER_TOPOLOGY.filter(
    (item): item is QueueDeclaration => item.kind === 'queue' && item.owner === service,
  );
  const queueNames = new Set(queues.map((queue) => queue.name));
  const ownBindings = BROKER_TOPOLOGY.filter(
    (item): item is BindingDeclaration => item.kind === 'binding' && queueNames.has(item.queue),
  );
  const exchangeNames = new Set(ownBindings.map((binding) => binding.exchange));
  const exchanges = BROKER_TOPOLOGY.filter(
    (item): item is ExchangeDeclaration =>
      item.kind === 'exchange' &&
      (item.publishers.includes(service) || exchangeNames.has(item.name)),
  );
  return [...exchanges, ...queues, ...ownBindings];
}

/** Whether a topic binding's pattern matches a routing key (`*` one word, `#` zero or more). */
export function topicMatches(pattern: string, routingKey: string): boolean {
  const match = (p: string[], k: string[]): boolean => {
    if (p.length === 0) return k.length === 0;
    const [head, ...rest] = p;
    if (head === '#') return match(rest, k) || (k.length > 0 && match(p, k.slice(1)));
    return k.length > 0 && (head === '*' || head === k[0]) && match(rest, k.slice(1));
  };
  return match(pattern.split('.'), routingKey.split('.'));
}

/**
 * The queues of the topology that a message published on `exchange` under `routingKey` reaches,
 * sorted. Events that reach the same queues may travel in one batch message under any one of
 * their keys: each queue still receives exactly the events it is bound to.
 */
export function queuesRoutedTo(exchange: ExchangeName, routingKey: string): string[] {
  const queues = BROKER_TOPOLOGY.filter(
    (item): item is BindingDeclaration =>
      item.kind === 'binding' &&
      item.exchange === exchange &&
      (EXCHANGE_TYPES[exchange] === 'topic'
        ? topicMatches(item.routingKey, routingKey)
        : EXCHANGE_TYPES[exchange] === 'fanout' || item.routingKey === routingKey),
  ).map((binding) => binding.queue);
  return [...new Set(queues)].sort();
}
