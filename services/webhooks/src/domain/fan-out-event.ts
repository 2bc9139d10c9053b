import { toWebhookEnvelope, type BrokerEvent } from '@switchboard/contracts';
import type { DeliveryStore, StoredDelivery } from '../data-access/delivery-store';
import type { StoredWebhook, WebhookStore } from '../data-access/webhook-store';
import { deliveryMessage, type DeliveryQueue } from './attempt-delivery';

export interface FanOutDeps {
  webhooks: Pick<WebhookStore, 'findSubscribed'>;
  deliveries: Pick<DeliveryStore, 'insertMany'>;
  queue: Pick<DeliveryQueue, 'enqueue'>;
  now?: () => Date;
}

/** One event and one webhook make one delivery, whatever the number of times the event arrives. */
export const eventDeliveryId = (eventId: string, webhookId: number) => `${eventId}.${webhookId}`;

export function newDelivery(
  fields: Pick<StoredDelivery, '_id' | 'event_id' | 'event' | 'payload' | 'kind'>,
  webhook: StoredWebhook,
  now: Date,
): StoredDelivery {
  return {
    ...fields,
    webhook_id: webhook._id,
    company_id: webhook.company_id,
    generation: webhook.generation,
    created_at: now,
  };
}

/**
 * An event from `svc.events` becomes one delivery per active webhook of its organization that
 * subscribes to it: the envelope serialized once and stored, then one message per delivery.
 * Idempotent: an event that arrives again makes no second delivery; the first-attempt messages
 * it publishes again are marked, and dropped by the consumer once that attempt is logged.
 */
export async function fanOutEvent(deps: FanOutDeps, event: BrokerEvent): Promise<number> {
  const webhooks = await deps.webhooks.findSubscribed(event.company_id, event.event);
  if (webhooks.length === 0) return 0;
  const now = (deps.now ?? (() => new Date()))();
  const payload = JSON.stringify(toWebhookEnvelope(event));
  const deliveries = webhooks.map((webhook) =>
    newDelivery(
      {
        _id: eventDeliveryId(event.id, webhook._id),
        event_id: event.id,
        event: event.event,
        payload,
        kind: 'event',
      },
      webhook,
      now,
    ),
  );
  const outcomes = await deps.deliveries.insertMany(deliveries);
  await Promise.all(
    deliveries.map((delivery, index) =>
      deps.queue.enqueue({
        ...deliveryMessage(delivery, 1),
        possibly_duplicate: outcomes[index] !== 'inserted',
      }),
    ),
  );
  return deliveries.length;
}
