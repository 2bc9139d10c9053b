import { EXCHANGES } from '@switchboard/contracts';
import type { Broker } from './broker';

/**
 * Publishes an event on `exchange` under `routingKeyOf(event)`, by default its name
 * (`event.event`), its id the message id that consumers deduplicate on. Without a broker (a service started with `useBroker: false`) each
 * call throws, so an outbox relay keeps the event for later rather than losing it.
 */
export function eventPublisher<E extends { event: string; id: string }>(
  broker: Broker | undefined,
  service: string,
  exchange: string = EXCHANGES.events,
  routingKeyOf: (event: E) => string = (event) => event.event,
): (event: E) => Promise<void> {
  return async (event) => {
    if (!broker) throw new Error(`${service} runs without a broker`);
    await broker.publish(exchange, routingKeyOf(event), event, { messageId: event.id });
  };
}
