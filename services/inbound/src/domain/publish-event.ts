import { randomUUID } from 'node:crypto';
import {
  EXCHANGES,
  PROVIDER_STATUS_BATCH_MAX,
  ROUTING_KEYS,
  type ProviderEventMessage,
  type ProviderStatusBatchMessage,
} from '@switchboard/contracts';
import { runInTraceContext, type Broker } from '@switchboard/service-kit';
import type { InboundEvent, PendingPublication } from '../data-access/inbound-event-store';

/** One broker message to publish, and the stored events it carries publications of. */
interface Publication {
  events: InboundEvent[];
  publish(): Promise<void>;
}

const messageOf = (event: InboundEvent, item: PendingPublication): ProviderEventMessage => ({
  id: item.message_id,
  company_id: event.company_id,
  inbound_event_id: event._id,
  waba_id: item.waba_id,
  field: item.field,
  value: JSON.parse(item.value_json) as Record<string, unknown>,
  received_at: event.received_at.toISOString(),
});

/**
 * The broker messages of many events: each publication on its own, except statuses, which go
 * together (every broker message is a quorum queue's log write, and statuses are three per send):
 * the statuses of all the events, in their order, as batch messages of up to
 * PROVIDER_STATUS_BATCH_MAX; a lone status as the plain message it always was.
 */
function publicationsOf(broker: Broker, events: InboundEvent[]): Publication[] {
  const single = (event: InboundEvent, item: PendingPublication): Publication => ({
    events: [event],
    // In the trace of the webhook's arrival, also when the relay job publishes it later.
    publish: () =>
      runInTraceContext(event.trace_context, () =>
        broker.publish(EXCHANGES.provider, item.routing_key, messageOf(event, item), {
          messageId: item.message_id,
        }),
      ),
  });
  const others: Publication[] = [];
  const statuses: { event: InboundEvent; item: PendingPublication }[] = [];
  for (const event of events) {
    for (const item of event.pending) {
      if (item.routing_key === ROUTING_KEYS.provider.status) statuses.push({ event, item });
      else others.push(single(event, item));
    }
  }
  const batches: Publication[] = [];
  for (let start = 0; start < statuses.length; start += PROVIDER_STATUS_BATCH_MAX) {
    const chunk = statuses.slice(start, start + PROVIDER_STATUS_BATCH_MAX);
    if (chunk.length === 1) {
      batches.push(single(chunk[0]!.event, chunk[0]!.item));
      continue;
    }
    const message: ProviderStatusBatchMessage = {
      id: randomUUID(),
      statuses: chunk.map(({ event, item }) => messageOf(event, item)),
    };
    batches.push({
      events: [...new Set(chunk.map(({ event }) => event))],
      // A batch has one trace: its first status's webhook's.
      publish: () =>
        runInTraceContext(chunk[0]!.event.trace_context, () =>
          broker.publish(EXCHANGES.provider, ROUTING_KEYS.provider.status, message, {
            messageId: message.id,
          }),
        ),
    });
  }
  return [...others, ...batches];
}

/**
 * Publishes the pending messages of many events side by side (they still leave in this order on
 * the one publishing channel, so statuses keep theirs) and answers the events whose messages the
 * broker all confirmed within `waitMs`. An event with a publication that failed or was not
 * confirmed in time is left out (`failed` says why), for the relay, which publishes all of its
 * messages again. Publishing twice is harmless: message ids are deterministic and messaging
 * deduplicates by them and by wamid.
 */
export async function publishEvents(
  broker: Broker,
  events: InboundEvent[],
  waitMs = Infinity,
): Promise<{ published: InboundEvent[]; failed: unknown[] }> {
  const publications = publicationsOf(broker, events);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    if (Number.isFinite(waitMs)) {
      timer = setTimeout(() => reject(new Error(`no confirm within ${waitMs} ms`)), waitMs);
    }
  });
  late.catch(() => undefined);
  const outcomes = await Promise.allSettled(
    publications.map((publication) => Promise.race([publication.publish(), late])),
  );
  clearTimeout(timer);
  const unpublished = new Set<InboundEvent>();
  const failed: unknown[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    failed.push(outcome.reason);
    for (const event of publications[index]!.events) unpublished.add(event);
  });
  return { published: events.filter((event) => !unpublished.has(event)), failed };
}
