import {
  BrokerEventMessageSchema,
  EXCHANGES,
  QUEUES,
  WebhookDeliveryMessageSchema,
  brokerEventsOf,
  type WebhookDeliveryMessage,
} from '@switchboard/contracts';
import { handleAll, type Broker, type MessageContext } from '@switchboard/service-kit';
import {
  processDeliveryMessage,
  type DeliveryDeps,
  type DeliveryQueue,
} from '../../domain/attempt-delivery';
import { fanOutEvent, type FanOutDeps } from '../../domain/fan-out-event';

const messageId = (message: WebhookDeliveryMessage) =>
  `${message.delivery_id}#${message.attempt}.${message.postponed}`;

/** Delivery messages go to `webhooks.deliveries` now, or through a retry exchange's TTL queue. */
export function brokerDeliveryQueue(broker: Broker): DeliveryQueue {
  return {
    enqueue: (message) =>
      broker.publish('', QUEUES.webhooksDeliveries, message, { messageId: messageId(message) }),
    delay: (message, step) =>
      broker.publish(EXCHANGES.webhooksRetry, step.routingKey, message, {
        messageId: messageId(message),
      }),
  };
}

export interface ConsumerOptions {
  eventPrefetch: number;
  deliveryPrefetch: number;
}

/** A message handled again: redelivered by the broker, or retried after an error. */
const handledBefore = (context: MessageContext) => context.redelivered || context.attempt > 1;

/**
 * Two consumers: events fan out into deliveries and make their first attempts, and delivery
 * messages (retries, attempts put off, redeliveries asked for) are attempted. Each event of a
 * batch message is handled as a lone one, side by side (one payload, one delivery per subscribed
 * webhook, each signed on its own); the batch is acked once all are, retried whole otherwise
 * (fanning out is idempotent by event id), parked whole only when what is left never can be.
 * Each handler resolves only after its database writes and confirmed publishes, so an ack never
 * loses work; an invalid message is parked in `<queue>.dead` with the reason by the kit.
 */
export async function startConsumers(
  broker: Broker,
  deps: { fanOut: Omit<FanOutDeps, 'attempt'>; delivery: DeliveryDeps },
  options: ConsumerOptions,
): Promise<void> {
  const fanOut: FanOutDeps = {
    ...deps.fanOut,
    attempt: (message, again) => processDeliveryMessage(deps.delivery, message, again),
  };
  await broker.consume(
    QUEUES.webhooksEvents,
    async (message, context) => {
      const again = handledBefore(context);
      await handleAll(brokerEventsOf(message).map((event) => fanOutEvent(fanOut, event, again)));
    },
    // An event carries its deliveries' first attempts, so it may fail as often as they may.
    { schema: BrokerEventMessageSchema, prefetch: options.eventPrefetch, maxAttempts: 10 },
  );
  await broker.consume(
    QUEUES.webhooksDeliveries,
    (message, context) => processDeliveryMessage(deps.delivery, message, handledBefore(context)),
    { schema: WebhookDeliveryMessageSchema, prefetch: options.deliveryPrefetch, maxAttempts: 10 },
  );
}
