import type { Subscription } from '@switchboard/contracts';
import { AppError, isDuplicateKeyError } from '@switchboard/service-kit';
import type { StoredContact } from '../data-access/contact-store';
import type { ContactsDeps } from './dependencies';
import { contactNotFound } from './not-found';
import type { ContactChangesPlan } from './plan-contact-changes';

export interface NewContact {
  company_id: number;
  name: string;
  phone: string;
  email?: string | null;
  group_ids?: number[];
  custom?: Record<string, string>;
  subscription?: Subscription;
}

/**
 * Stores a new contact with its `contact_created` event in one write. Throws a duplicate-key
 * error when the organization already has the phone; the caller holds a quota place for it.
 */
export async function insertContact(
  deps: ContactsDeps,
  fields: NewContact,
  now: Date,
): Promise<StoredContact> {
  const id = await deps.nextContactId();
  const contact: StoredContact = {
    id,
    company_id: fields.company_id,
    name: fields.name,
    phone: fields.phone,
    email: fields.email ?? null,
    language: null,
    subscription: fields.subscription ?? 'subscribed',
    group_ids: fields.group_ids ?? [],
    custom: fields.custom ?? {},
    ai_bot_enabled: false,
    created_at: now,
    updated_at: now,
    pending_events: {},
    pending_count: 0,
  };
  const event = deps.events.record('contact_created', contact, now);
  if (event) {
    contact.pending_events = { [event.id]: event };
    contact.pending_count = 1;
  }
  await deps.contacts.insert(contact);
  if (event) deps.events.relaySoon(contact.company_id, id);
  return contact;
}

const phoneTaken = (phone: string) =>
  new AppError(
    'conflict',
    `phone: another contact of this organization already has the phone ${phone}`,
  );

/** Writes a plan to an existing contact with its `contact_updated` event; no plan, no write. */
export async function applyContactChanges(
  deps: ContactsDeps,
  existing: StoredContact,
  plan: ContactChangesPlan | null,
  now: Date,
): Promise<StoredContact> {
  if (!plan) return existing;
  const set = { ...plan.set, updated_at: now };
  const after = { ...existing, ...(set as Partial<StoredContact>) };
  if (after.phone !== existing.phone) {
    const holder = await deps.contacts.findByPhone(existing.company_id, after.phone);
    if (holder) throw phoneTaken(after.phone);
  }
  const event = deps.events.record('contact_updated', after, now);
  let updated: StoredContact | null;
  try {
    updated = await deps.contacts.update(existing.company_id, existing.id, {
      set,
      unset: plan.unset,
      addGroupIds: plan.addGroupIds,
      event,
    });
  } catch (error) {
    // A concurrent write took the phone between the check above and this update.
    if (isDuplicateKeyError(error)) throw phoneTaken(after.phone);
    throw error;
  }
  if (!updated) throw contactNotFound(`id ${existing.id}`);
  if (event) deps.events.relaySoon(existing.company_id, existing.id);
  return updated;
}
