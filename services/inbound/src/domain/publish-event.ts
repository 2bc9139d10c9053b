import { EXCHANGES, type ProviderEventMessage } from '@switchboard/contracts';
import { runInTraceContext, type Broker } from '@switchboard/service-kit';
import type { InboundEvent, InboundEventStore } from '../data-access/inbound-event-store';

/**
 * Publishes an event's pending messages and then clears them. Publishing twice is harmless:
 * message ids are deterministic and messaging deduplicates by them and by wamid.
 */
export async function publishEvent(
  broker: Broker,
  store: InboundEventStore,
  event: InboundEvent,
  now = new Date(),
): Promise<void> {
  // In the trace of the webhook's arrival, also when the relay job publishes it later.
  await runInTraceContext(event.trace_context, () => publishPending(broker, event));
  await store.markPublished(event._id, now);
}

async function publishPending(broker: Broker, event: InboundEvent): Promise<void> {
  for (const item of event.pending) {
    const message: ProviderEventMessage = {
      id: item.message_id,
      company_id: event.company_id,
      inbound_event_id: event._id,
      waba_id: item.waba_id,
      field: item.field,
      value: JSON.parse(item.value_json) as Record<string, unknown>,
      received_at: event.received_at.toISOString(),
    };
    await broker.publish(EXCHANGES.provider, item.routing_key, message, {
      messageId: item.message_id,
    });
  }
}
