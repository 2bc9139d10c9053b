import { EXCHANGES, type ProviderEventMessage } from '@switchboard/contracts';
import { runInTraceContext, type Broker } from '@switchboard/service-kit';
import type { InboundEvent } from '../data-access/inbound-event-store';

/**
 * Publishes the pending messages of many events side by side, then marks the events whose
 * messages the broker all confirmed published (`markPublished`: in one batch of writes, or
 * gathered with other batches'). An event with a failed
 * publish stays unpublished for the relay. Publishing twice is harmless: message ids are
 * deterministic and messaging deduplicates by them and by wamid.
 */
export async function publishEvents(
  broker: Broker,
  markPublished: (ids: string[]) => Promise<void>,
  events: InboundEvent[],
): Promise<{ published: number; failed: unknown[] }> {
  // Each in the trace of the webhook's arrival, also when the relay job publishes it later.
  const outcomes = await Promise.allSettled(
    events.map((event) =>
      runInTraceContext(event.trace_context, () => publishPending(broker, event)),
    ),
  );
  const done = events.filter((_, index) => outcomes[index]!.status === 'fulfilled');
  await markPublished(done.map((event) => event._id));
  const failed = outcomes.flatMap((outcome) =>
    outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
  );
  return { published: done.length, failed };
}

async function publishPending(broker: Broker, event: InboundEvent): Promise<void> {
  // Side by side: they still leave in this order on the one publishing channel.
  await Promise.all(
    event.pending.map((item) => {
      const message: ProviderEventMessage = {
        id: item.message_id,
        company_id: event.company_id,
        inbound_event_id: event._id,
        waba_id: item.waba_id,
        field: item.field,
        value: JSON.parse(item.value_json) as Record<string, unknown>,
        received_at: event.received_at.toISOString(),
      };
      return broker.publish(EXCHANGES.provider, item.routing_key, message, {
        messageId: item.message_id,
      });
    }),
  );
}
