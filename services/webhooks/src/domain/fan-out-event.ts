import {
  toWebhookEnvelope,
  type BrokerEvent,
  type WebhookDeliveryMessage,
} from '@switchboard/contracts';
import { eventDeliveryId, eventPayloadId, type DeliveryStore } from '../data-access/delivery-store';
import type { WebhookStore } from '../data-access/webhook-store';
import { deliveryMessage, type DeliveryRef } from './attempt-delivery';

export interface FanOutDeps {
  webhooks: Pick<WebhookStore, 'findSubscribed'>;
  deliveries: Pick<DeliveryStore, 'insertEventPayload'>;
  /**
   * Makes the first attempt of one delivery (the delivery consumer's own handling: breaker,
   * endpoint limit, log, retry); resolves once it is logged or handed to a retry queue.
   */
  attempt: (message: WebhookDeliveryMessage, handledBefore: boolean) => Promise<void>;
  now?: () => Date;
}

/**
 * An event from `svc.events` becomes one delivery per active webhook of its organization that
 * subscribes to it: the envelope serialized once and stored once for all of them, then the
 * first attempt of each made here, side by side, without a trip through `webhooks.deliveries`
 * (retries and attempts put off go through the retry queues, their message carrying the bytes).
 * The event is acknowledged once every first attempt is logged or queued. Idempotent: an event
 * that arrives again makes no second delivery, and its attempts already logged are not made again.
 */
export async function fanOutEvent(
  deps: FanOutDeps,
  event: BrokerEvent,
  /** The broker redelivered the event, or the handler runs it again after an error. */
  handledBefore = false,
): Promise<number> {
  const webhooks = await deps.webhooks.findSubscribed(event.company_id, event.event);
  if (webhooks.length === 0) return 0;
  const payload = JSON.stringify(toWebhookEnvelope(event));
  const stored = await deps.deliveries.insertEventPayload({
    _id: eventPayloadId(event.company_id, event.id),
    company_id: event.company_id,
    event_id: event.id,
    event: event.event,
    payload,
    webhook_ids: webhooks.map((webhook) => webhook._id),
    created_at: (deps.now ?? (() => new Date()))(),
  });
  const deliveries: DeliveryRef[] = webhooks.map((webhook) => ({
    _id: eventDeliveryId(event.id, webhook._id),
    webhook_id: webhook._id,
    company_id: webhook.company_id,
    event_id: event.id,
    event: event.event,
    payload,
    generation: webhook.generation,
  }));
  // Every attempt runs to its end before a failure is reported: the event then comes back
  // (at least once), and must not meet an attempt of its own still under way.
  const settled = await Promise.allSettled(
    deliveries.map((delivery) =>
      deps.attempt(
        { ...deliveryMessage(delivery, 1), possibly_duplicate: stored !== 'inserted' },
        handledBefore,
      ),
    ),
  );
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return deliveries.length;
}
