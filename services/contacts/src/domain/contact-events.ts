import { randomUUID } from 'node:crypto';
import { withTraceContext, type EventRelay, type OutboxSource } from '@switchboard/service-kit';
import {
  contactOutboxKey,
  type PendingEvent,
  type StoredContact,
} from '../data-access/contact-store';

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

/**
 * The contacts' outbox on the kit's event relay: events are made only while reserved events are
 * on, and each write's are published at once, in order per contact.
 */
export function contactEventOutbox(
  relay: Pick<EventRelay, 'relaySoon' | 'flush'>,
  source: OutboxSource,
  enabled: boolean,
): ContactEventOutbox {
  return {
    record: (event, contact, now) => (enabled ? contactEvent(event, contact, now) : undefined),
    relaySoon(company_id, id) {
      if (enabled) relay.relaySoon(source, contactOutboxKey(company_id, id));
    },
    flush: (company_id, id) =>
      enabled ? relay.flush(source, contactOutboxKey(company_id, id)) : Promise.resolve(),
  };
}
