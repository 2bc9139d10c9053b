import { z } from 'zod';
import { EVENT_NAMES, type EventName } from './event-names';
import { EVENT_PAYLOAD_SCHEMAS } from './payloads';

const timestamp = () => z.iso.datetime({ offset: true });

type EventNames = typeof EVENT_NAMES;

function webhookEnvelopeFor<E extends EventName>(event: E) {
  return z.strictObject({
    event: z.literal(event),
    timestamp: timestamp(),
    data: EVENT_PAYLOAD_SCHEMAS[event],
  });
}

function brokerEventFor<E extends EventName>(event: E) {
  return z.strictObject({
    id: z.uuid(),
    event: z.literal(event),
    timestamp: timestamp(),
    company_id: z.number().int().positive(),
    /**
     * The campaign a message event belongs to, outside `data`: the customer's payload
     * stays exactly as the published payloads list it, and campaigns counts its progress from it.
     */
    campaign_id: z.number().int().positive().optional(),
    /**
     * `message_received` of a button or list reply: the chosen button's or row's id,
     * outside `data` like `campaign_id` (`data.message` holds its title).
     */
    reply_id: z.string().min(1).max(256).optional(),
    /** `message_received` sent from the business's own number (an echo): never answered. */
    echo: z.literal(true).optional(),
    /**
     * `message_received` of a contact an agent of the business answered recently: automated
     * answers (replies, flows, the AI bot) stay quiet while a person handles the conversation.
     */
    automation_paused: z.literal(true).optional(),
    /**
     * A message event's phone number of the organization (the one that sent or received it),
     * outside `data` like `campaign_id`: an organization may have several numbers.
     */
    phone_number_id: z
      .string()
      .regex(/^[0-9]{1,30}$/)
      .optional(),
    data: EVENT_PAYLOAD_SCHEMAS[event],
  });
}

// One variant per event name, typed as a tuple so the union keeps each event's own `data` type.
type WebhookVariant<E> = E extends EventName ? ReturnType<typeof webhookEnvelopeFor<E>> : never;
type BrokerVariant<E> = E extends EventName ? ReturnType<typeof brokerEventFor<E>> : never;
type Variants<T extends readonly unknown[], Kind extends 'webhook' | 'broker'> = {
  -readonly [I in keyof T]: Kind extends 'webhook' ? WebhookVariant<T[I]> : BrokerVariant<T[I]>;
};

const webhookVariants = EVENT_NAMES.map((event) =>
  webhookEnvelopeFor(event),
) as unknown as Variants<EventNames, 'webhook'>;
const brokerVariants = EVENT_NAMES.map((event) => brokerEventFor(event)) as unknown as Variants<
  EventNames,
  'broker'
>;

/** What a customer's endpoint receives (the published event envelope): `data` is checked against the event's payload. */
export const WebhookEnvelopeSchema = z.discriminatedUnion('event', webhookVariants);
export type WebhookEnvelope = z.infer<typeof WebhookEnvelopeSchema>;

/** An event on the `svc.events` exchange (ARCHITECTURE §6). */
export const BrokerEventSchema = z.discriminatedUnion('event', brokerVariants);
export type BrokerEvent = z.infer<typeof BrokerEventSchema>;

const JsonTextSchema = z.string().transform((text, ctx): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'Message body is not valid JSON' });
    return z.NEVER;
  }
});

/**
 * Parses a broker event from a parsed object, a JSON string or the raw message bytes.
 * Throws a `ZodError` on anything else, including invalid JSON, so consumers handle one error type.
 */
export function parseBrokerEvent(value: unknown): BrokerEvent {
  const text = value instanceof Uint8Array ? new TextDecoder().decode(value) : value;
  const json = typeof text === 'string' ? JsonTextSchema.parse(text) : text;
  return BrokerEventSchema.parse(json);
}

/** The customer-facing envelope of a broker event: the same event, timestamp and data. */
export function toWebhookEnvelope(event: BrokerEvent): WebhookEnvelope {
  return { event: event.event, timestamp: event.timestamp, data: event.data } as WebhookEnvelope;
}
