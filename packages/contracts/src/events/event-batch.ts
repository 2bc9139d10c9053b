import { z } from 'zod';
import { BrokerEventSchema } from './envelope';

/** The most events one batch message carries. */
export const EVENT_BATCH_MAX = 100;

/**
 * Several events in one broker message on `svc.events`: a publisher sends the events it
 * publishes together (the outcomes one batched write of messages stored) as one message, because
 * every broker message is a quorum queue's log write in each queue it reaches. Each event is
 * whole, exactly the event message a single one is, in the order published; a batch holds only
 * events that every queue it reaches would receive one by one (see `queuesRoutedTo`), and goes
 * under the routing key of its first event. A lone event still travels as a plain event, which
 * is also what publishers sent before batches existed: consumers read both.
 */
export const BrokerEventBatchSchema = z.object({
  /** The batch's own id (its message id; a consumer's retries count by it); each event keeps its own. */
  id: z.string().min(1),
  events: z.array(BrokerEventSchema).min(1).max(EVENT_BATCH_MAX),
});
export type BrokerEventBatch = z.infer<typeof BrokerEventBatchSchema>;

/** A body is read as a batch when it has `events` and no `event` of its own. */
const isBatch = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && 'events' in value && !('event' in value);

/**
 * What a queue bound to `svc.events` carries: one event, or a batch of them. Each shape is
 * checked by its own schema (not a union of both), so that a refusal names the offending field,
 * e.g. `data.message_id`, or `events.1.data` of a batch.
 */
export function eventOrBatch<E, B>(single: z.ZodType<E>, batch: z.ZodType<B>) {
  return z.unknown().transform((value, ctx): E | B => {
    const parsed = (isBatch(value) ? batch : single).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: value });
    }
    return z.NEVER;
  });
}

export const BrokerEventMessageSchema = eventOrBatch(BrokerEventSchema, BrokerEventBatchSchema);
export type BrokerEventMessage = z.infer<typeof BrokerEventMessageSchema>;

/** The events of a message from `svc.events`, in the order published. */
export const brokerEventsOf = <E extends object>(message: E | { id: string; events: E[] }): E[] =>
  'events' in message && Array.isArray(message.events) ? message.events : [message as E];
