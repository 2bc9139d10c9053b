import { randomUUID } from 'node:crypto';
import { withTraceContext } from '@switchboard/service-kit';
import type { PendingEvent, StoredContact } from '../data-access/contact-store';

export type ContactEventName = PendingEvent['event'];
type EventSubject = Pick<StoredContact, 'id' | 'company_id' | 'name' | 'phone' | 'email'>;

/**
 * The reserved events of a contact (the published event catalog) go out through an outbox: the event is written with
 * the contact in the same single-document write, then published and cleared by the relay.
 */
export interface ContactEventOutbox {
  /** The event to store with this write; undefined while reserved events are off. */
  record(event: ContactEventName, contact: EventSubject, now: Date): PendingEvent | undefined;
  /** Publishes, in the background, what a write just stored for this contact. */
  relaySoon(company_id: number, id: number): void;
  /** Publishes now what is pending for one contact (e.g. before it is deleted). */
  flush(company_id: number, id: number): Promise<void>;
}

/** A broker event (ARCHITECTURE §6) with the provisional payload of `ContactCreatedDataSchema`. */
export function contactEvent(
  event: ContactEventName,
  contact: EventSubject,
  now: Date,
): PendingEvent {
  return withTraceContext({
    id: randomUUID(),
    event,
    timestamp: now.toISOString(),
    company_id: contact.company_id,
    data: {
      contact_id: contact.id,
      name: contact.name,
      phone: contact.phone,
      email: contact.email ?? null,
      company_id: contact.company_id,
    },
  });
}

/** Pending events in the order they were written. */
export function pendingInOrder(contact: Pick<StoredContact, 'pending_events'>): PendingEvent[] {
  return Object.values(contact.pending_events ?? {}).sort((a, b) =>
    a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0,
  );
}
