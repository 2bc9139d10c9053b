import {
  BrokerEventSchema,
  EXCHANGES,
  QUEUES,
  WebhookDeliveryMessageSchema,
  type WebhookDeliveryMessage,
} from '@switchboard/contracts';
import type { Broker } from '@switchboard/service-kit';
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

/**
 * Two consumers: events fan out into deliveries, deliveries are attempted. Each handler resolves
 * only after its database writes and confirmed publishes, so an ack never loses work; an invalid
 * message is parked in `<queue>.dead` with the reason by the kit.
 */
export async function startConsumers(
  broker: Broker,
  deps: { fanOut: FanOutDeps; delivery: DeliveryDeps },
  options: ConsumerOptions,
): Promise<void> {
  await broker.consume(
    QUEUES.webhooksEvents,
    async (event) => {
      await fanOutEvent(deps.fanOut, event);
    },
    { schema: BrokerEventSchema, prefetch: options.eventPrefetch },
  );
  await broker.consume(
    QUEUES.webhooksDeliveries,
    (message, context) =>
      processDeliveryMessage(deps.delivery, message, context.redelivered || context.attempt > 1),
    { schema: WebhookDeliveryMessageSchema, prefetch: options.deliveryPrefetch, maxAttempts: 10 },
  );
}
