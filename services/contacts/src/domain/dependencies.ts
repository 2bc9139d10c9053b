import type { ContactStore, StoredContact } from '../data-access/contact-store';
import type { GroupStore } from '../data-access/group-store';
import type { QuotaStore } from '../data-access/quota-store';
import type { ContactEventOutbox } from './contact-events';
import { groupNamesOf, toContactView } from './contact-view';

/** What the domain functions work with; built once in start-service.ts. */
export interface ContactsDeps {
  contacts: ContactStore;
  groups: GroupStore;
  quotas: QuotaStore;
  nextContactId: () => Promise<number>;
  nextGroupId: () => Promise<number>;
  events: ContactEventOutbox;
}

/** Views of a few contacts, with the names of their groups read in one query. */
export async function presentContacts(deps: ContactsDeps, stored: StoredContact[]) {
  if (stored.length === 0) return [];
  const groupIds = [...new Set(stored.flatMap((contact) => contact.group_ids))];
  const groups = groupIds.length
    ? await deps.groups.findByIds(stored[0]!.company_id, groupIds)
    : [];
  const names = groupNamesOf(groups);
  return stored.map((contact) => toContactView(contact, names));
}

export async function presentContact(deps: ContactsDeps, stored: StoredContact) {
  const [contact] = await presentContacts(deps, [stored]);
  return contact!;
}
