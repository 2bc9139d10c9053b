import {
  DEFAULT_PER_PAGE,
  asksForPage,
  pageMeta,
  pageRequest,
  type Contact,
  type GetContactsQuery,
  type GetSingleContactQuery,
  type PageMeta,
} from '@switchboard/contracts';
import type { ContactFilter } from '../data-access/contact-store';
import { groupNamesOf, toContactView } from './contact-view';
import { presentContact, presentContacts, type ContactsDeps } from './dependencies';
import { contactNotFound, groupNotFound } from './not-found';

/** Contacts read per database round trip when everything is listed. */
export const LISTING_BATCH = 1000;

export async function getSingleContact(
  deps: ContactsDeps,
  company_id: number,
  query: GetSingleContactQuery,
): Promise<Contact> {
  const { contact_id, phone } = query;
  const found =
    contact_id !== undefined
      ? await deps.contacts.findById(company_id, contact_id)
      : await deps.contacts.findByPhone(company_id, phone!);
  // Both given: both must match.
  if (!found || (phone !== undefined && found.phone !== phone)) {
    const by = [
      contact_id !== undefined ? `id ${contact_id}` : undefined,
      phone !== undefined ? `phone ${phone}` : undefined,
    ];
    throw contactNotFound(by.filter(Boolean).join(' and '));
  }
  return presentContact(deps, found);
}

async function listingFilter(
  deps: ContactsDeps,
  company_id: number,
  query: GetContactsQuery,
): Promise<ContactFilter> {
  if (query.group_id !== undefined) {
    const group = await deps.groups.findById(company_id, query.group_id);
    if (!group) throw groupNotFound([query.group_id]);
  }
  return {
    company_id,
    ...(query.group_id !== undefined ? { group_ids: [query.group_id] } : {}),
    ...(query.search ? { search: query.search } : {}),
  };
}

export const wantsPage = (query: GetContactsQuery) => asksForPage(query);

/** One page, oldest first, with the total of matching contacts. */
export async function listContactPage(
  deps: ContactsDeps,
  company_id: number,
  query: GetContactsQuery,
): Promise<{ contacts: Contact[]; meta: PageMeta }> {
  const filter = await listingFilter(deps, company_id, query);
  const page = pageRequest(query, DEFAULT_PER_PAGE);
  const [stored, total] = await Promise.all([
    deps.contacts.find(filter, { skip: page.skip, limit: page.per_page }),
    deps.contacts.count(filter),
  ]);
  return { contacts: await presentContacts(deps, stored), meta: pageMeta(total, page) };
}

/**
 * Every matching contact, oldest first, in batches read from one cursor: the group names are
 * read once, and no contact costs a query of its own. The filter is checked before the first batch.
 */
export async function listAllContacts(
  deps: ContactsDeps,
  company_id: number,
  query: GetContactsQuery,
): Promise<AsyncIterable<Contact[]>> {
  const filter = await listingFilter(deps, company_id, query);
  const names = groupNamesOf(await deps.groups.findAll(company_id));
  return (async function* () {
    for await (const batch of deps.contacts.batches(filter, LISTING_BATCH)) {
      yield batch.map((contact) => toContactView(contact, names));
    }
  })();
}

/** Internal: the organization's contacts among `ids`, in id order; unknown ids are left out. */
export async function contactsByIds(
  deps: ContactsDeps,
  company_id: number,
  ids: number[],
): Promise<Contact[]> {
  const stored = await deps.contacts.find({ company_id, ids: [...new Set(ids)] });
  return presentContacts(deps, stored);
}
