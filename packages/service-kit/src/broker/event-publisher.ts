import { randomUUID } from 'node:crypto';
import {
  EVENT_BATCH_MAX,
  EXCHANGES,
  queuesRoutedTo,
  type BrokerEventBatch,
  type ExchangeName,
} from '@switchboard/contracts';
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

/** One broker message to publish: a lone event, or a batch; `places` says where each came from. */
export interface PlannedMessage<E> {
  events: E[];
  /** [sequence, position] of each event, in the order of `events`. */
  places: [number, number][];
}

/**
 * Plans the broker messages that carry `sequences` (each a record's events, in order): events of
 * the same route (`routeOf`: the queues their key reaches) go together, up to `max` a message,
 * whatever sequence they come from. A sequence's events reach a queue in order: the run of its
 * first route goes into the batches, and what follows a change of route goes alone, after every
 * batch (a record's events of different routes are rare: a message's outcomes share one).
 */
export function planEventMessages<E>(
  sequences: readonly (readonly E[])[],
  routeOf: (event: E) => string,
  max: number = EVENT_BATCH_MAX,
): PlannedMessage<E>[] {
  const open = new Map<string, PlannedMessage<E>>();
  const batches: PlannedMessage<E>[] = [];
  const alone: PlannedMessage<E>[] = [];
  sequences.forEach((events, sequence) => {
    const first = events.length > 0 ? routeOf(events[0]!) : '';
    let inRun = true;
    events.forEach((event, position) => {
      const place: [number, number] = [sequence, position];
      const route = position === 0 ? first : routeOf(event);
      inRun &&= route === first;
      if (!inRun) {
        alone.push({ events: [event], places: [place] });
        return;
      }
      let batch = open.get(route);
      if (!batch || batch.events.length >= max) {
        batch = { events: [], places: [] };
        open.set(route, batch);
        batches.push(batch);
      }
      batch.events.push(event);
      batch.places.push(place);
    });
  });
  return [...batches, ...alone];
}

/**
 * Publishes events as few broker messages as their routing allows (planEventMessages): events
 * that reach the same queues of the topology go as one `BrokerEventBatch` under the first one's
 * routing key, a lone event as the plain event it always was. Answers, per sequence and event,
 * whether the broker confirmed the message that carried it (a batch's events share its fate).
 * Messages are sent in order on one channel and their confirms awaited together.
 */
export function eventBatchPublisher<E extends { event: string; id: string }>(
  broker: Broker | undefined,
  service: string,
  exchange: ExchangeName = EXCHANGES.events,
  routingKeyOf: (event: E) => string = (event) => event.event,
): (sequences: readonly (readonly E[])[]) => Promise<PromiseSettledResult<void>[][]> {
  const publishOne = eventPublisher(broker, service, exchange, routingKeyOf);
  const routes = new Map<string, string>();
  const routeOf = (event: E) => {
    const key = routingKeyOf(event);
    let route = routes.get(key);
    if (route === undefined) {
      route = queuesRoutedTo(exchange, key).join(' ');
      routes.set(key, route);
    }
    return route;
  };
  const publishMessage = async (events: E[]): Promise<void> => {
    if (events.length === 1) return publishOne(events[0]!);
    if (!broker) throw new Error(`${service} runs without a broker`);
    const id = randomUUID();
    const batch = { id, events } as unknown as BrokerEventBatch;
    await broker.publish(exchange, routingKeyOf(events[0]!), batch, { messageId: id });
  };
  return async (sequences) => {
    const planned = planEventMessages(sequences, routeOf);
    const outcomes = await Promise.allSettled(planned.map((m) => publishMessage(m.events)));
    const results = sequences.map((events) =>
      events.map((): PromiseSettledResult<void> => ({ status: 'fulfilled', value: undefined })),
    );
    planned.forEach((message, index) => {
      for (const [sequence, position] of message.places) {
        results[sequence]![position] = outcomes[index]!;
      }
    });
    return results;
  };
}
