import type {
  Contact,
  InternalUpdateContactRequest,
  UpdateAIBotRequest,
  UpdateContactRequest,
} from '@switchboard/contracts';
import type { StoredContact } from '../data-access/contact-store';
import { presentContact, type ContactsDeps } from './dependencies';
import { resolveGroupRefs } from './manage-groups';
import { contactNotFound } from './not-found';
import {
  planAIBotChange,
  planInternalContactChanges,
  planUpdateContactChanges,
  type ContactChangesPlan,
} from './plan-contact-changes';
import { applyContactChanges } from './save-contact';

async function changeContact(
  deps: ContactsDeps,
  company_id: number,
  id: number,
  plan: (existing: StoredContact) => ContactChangesPlan | null,
  now: Date,
): Promise<Contact> {
  const existing = await deps.contacts.findById(company_id, id);
  if (!existing) throw contactNotFound(`id ${id}`);
  const updated = await applyContactChanges(deps, existing, plan(existing), now);
  return presentContact(deps, updated);
}

/** The API's `updateContact`: a new phone must not belong to another contact (409). */
export function updateContact(
  deps: ContactsDeps,
  company_id: number,
  { id, ...fields }: UpdateContactRequest,
  now = new Date(),
): Promise<Contact> {
  return changeContact(
    deps,
    company_id,
    id,
    (existing) => planUpdateContactChanges(existing, fields),
    now,
  );
}

/** The API's `updateAIBot`: the flag campaigns reads before letting the AI bot answer. */
export function updateAIBot(
  deps: ContactsDeps,
  company_id: number,
  { id, enabled }: UpdateAIBotRequest,
  now = new Date(),
): Promise<Contact> {
  return changeContact(deps, company_id, id, (existing) => planAIBotChange(existing, enabled), now);
}

/**
 * Internal: what a flow's step changes on a contact (fields, custom fields, groups), with the
 * rules of the public operations. The contact is looked up before any group is created.
 */
export async function updateContactInternally(
  deps: ContactsDeps,
  { company_id, id, groups, ...fields }: InternalUpdateContactRequest,
  now = new Date(),
): Promise<Contact> {
  const existing = await deps.contacts.findById(company_id, id);
  if (!existing) throw contactNotFound(`id ${id}`);
  const groupIds = groups ? await resolveGroupRefs(deps, company_id, groups, now) : [];
  const plan = planInternalContactChanges(existing, fields, groupIds);
  return presentContact(deps, await applyContactChanges(deps, existing, plan, now));
}
