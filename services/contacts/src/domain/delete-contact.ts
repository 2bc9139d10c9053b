import type { Contact } from '@switchboard/contracts';
import { presentContact, type ContactsDeps } from './dependencies';
import { contactNotFound } from './not-found';

/** Deletes a contact and gives its quota place back; answers the contact as it was. */
export async function deleteContact(
  deps: ContactsDeps,
  company_id: number,
  id: number,
): Promise<Contact> {
  const existing = await deps.contacts.findById(company_id, id);
  if (!existing) throw contactNotFound(`id ${id}`);
  // Its pending events would go with the document: publish them first.
  if (existing.pending_count > 0) await deps.events.flush(company_id, id);
  const deleted = await deps.contacts.delete(company_id, id);
  if (!deleted) throw contactNotFound(`id ${id}`);
  await deps.quotas.release(company_id);
  return presentContact(deps, deleted);
}
