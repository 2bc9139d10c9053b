import type { BrokerEvent, ProviderEventMessage } from '@switchboard/contracts';
import type { EventRelay } from '@switchboard/service-kit';
import type { NoticeStore } from '../data-access/notice-store';

/**
 * Keeps a provider notice once, with the events it causes in the same write, and has the relay
 * publish them; also on a redelivery (`duplicate`), which publishes what a crash may have left
 * unpublished.
 */
export async function storeNotice(
  deps: { notices: NoticeStore; relay: EventRelay },
  message: ProviderEventMessage,
  events: BrokerEvent[],
  now: Date,
): Promise<'inserted' | 'duplicate'> {
  const stored = await deps.notices.insertOnce(
    {
      _id: message.id,
      company_id: message.company_id,
      field: message.field,
      value_json: JSON.stringify(message.value),
      received_at: now,
    },
    events,
  );
  deps.relay.relaySoon(deps.notices.outbox, message.id);
  return stored;
}
