import { z } from 'zod';
import { EventNameSchema } from './events/event-names';

/**
 * A message on `webhooks.deliveries` (and, while it waits, on `webhooks.retry.*`): "make attempt
 * `attempt` of delivery `delivery_id`". It carries what the attempt sends (the delivery is also
 * stored, for the logs and redelivery), so that an attempt needs no database read of its own.
 */
export const WebhookDeliveryMessageSchema = z.strictObject({
  delivery_id: z.string().min(1).max(200),
  webhook_id: z.number().int().positive(),
  attempt: z.number().int().min(1).max(100),
  /** The event id: `X-Webhook-Id` and `webhook-id` of every attempt. */
  event_id: z.string().min(1).max(200),
  event: EventNameSchema,
  /** The envelope as serialized once, when the delivery was made: the exact bytes to send. */
  payload: z.string().min(2),
  /** The webhook's generation when the delivery was made; a pause since then cancels it. */
  generation: z.number().int().min(0),
  /** How many times this attempt was put off without being spent (open breaker, busy endpoint). */
  postponed: z.number().int().min(0).max(10_000).default(0),
  /**
   * Set when this message may repeat one already handled (its event arrived again, or it comes
   * from a redelivered handler): the consumer then first checks that the attempt is not logged.
   */
  possibly_duplicate: z.boolean().default(false),
});
export type WebhookDeliveryMessage = z.infer<typeof WebhookDeliveryMessageSchema>;

/** At most this much of a receiver's answer is read, stored and shown (ARCHITECTURE §7). */
export const WEBHOOK_RESPONSE_BODY_LIMIT_BYTES = 64 * 1024;
