import type { ConsumeMessage, Options } from 'amqplib';

export const ATTEMPTS_HEADER = 'x-attempts';
/** Retries that spent no attempt (RetryLaterError). */
export const POSTPONED_HEADER = 'x-postponed';
const ORIGINAL_EXCHANGE_HEADER = 'x-original-exchange';
const ORIGINAL_ROUTING_KEY_HEADER = 'x-original-routing-key';
// Written by RabbitMQ when the retry queue dead-letters back; stale once we republish ourselves.
const BROKER_DEATH_HEADERS = /^x-(death|first-death-|last-death-)/;

/** Attempts already made, as carried by a retried message; 0 on first delivery. */
export function attemptsMade(message: ConsumeMessage): number {
  const value = Number(message.properties.headers?.[ATTEMPTS_HEADER] ?? 0);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** Retries already made without spending an attempt; 0 on first delivery. */
export function postponementsMade(message: ConsumeMessage): number {
  const value = Number(message.properties.headers?.[POSTPONED_HEADER] ?? 0);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** A retried message arrives through the default exchange, so its first routing key travels in a header. */
export function originalRoutingKey(message: ConsumeMessage): string {
  const header = message.properties.headers?.[ORIGINAL_ROUTING_KEY_HEADER];
  return typeof header === 'string' ? header : message.fields.routingKey;
}

/**
 * The original properties for a copy sent to `*.retry` or `*.dead`, with `extraHeaders` added.
 * Left out: `expiration` (a parked message must not expire) and `userId` (RabbitMQ refuses a
 * user id that is not the publishing connection's).
 */
export function forwardedProperties(
  message: ConsumeMessage,
  extraHeaders: Record<string, unknown>,
): Options.Publish {
  const { properties, fields } = message;
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(properties.headers ?? {})) {
    if (!BROKER_DEATH_HEADERS.test(name)) headers[name] = value;
  }
  headers[ORIGINAL_EXCHANGE_HEADER] ??= fields.exchange;
  headers[ORIGINAL_ROUTING_KEY_HEADER] ??= fields.routingKey;
  const copied: Options.Publish = {
    contentType: properties.contentType,
    contentEncoding: properties.contentEncoding,
    priority: properties.priority,
    correlationId: properties.correlationId,
    replyTo: properties.replyTo,
    messageId: properties.messageId,
    timestamp: properties.timestamp,
    type: properties.type,
    appId: properties.appId,
  };
  const defined = Object.entries(copied).filter(([, value]) => value !== undefined);
  return {
    ...Object.fromEntries(defined),
    persistent: true,
    headers: { ...headers, ...extraHeaders },
  };
}
