import type { Audience, Contact } from '@switchboard/contracts';
import type { ContactFilter } from '../data-access/contact-store';
import { presentContacts, type ContactsDeps } from './dependencies';
import { groupNotFound } from './not-found';

export interface AudienceRequest {
  company_id: number;
  audience: Audience;
  include_unsubscribed: boolean;
}

/** Group audiences must name groups of the organization (404 otherwise); contact ids that are gone are skipped. */
async function audienceFilter(
  deps: ContactsDeps,
  request: AudienceRequest,
): Promise<ContactFilter> {
  const { company_id, audience } = request;
  const filter: ContactFilter = { company_id, subscribed_only: !request.include_unsubscribed };
  if (audience.type === 'groups') {
    const wanted = [...new Set(audience.group_ids)];
    const found = new Set(
      (await deps.groups.findByIds(company_id, wanted)).map((group) => group.id),
    );
    const unknown = wanted.filter((id) => !found.has(id));
    if (unknown.length > 0) throw groupNotFound(unknown);
    filter.group_ids = wanted;
  } else if (audience.type === 'contacts') {
    filter.ids = [...new Set(audience.contact_ids)];
  }
  return filter;
}

export async function countAudience(deps: ContactsDeps, request: AudienceRequest): Promise<number> {
  return deps.contacts.count(await audienceFilter(deps, request));
}

/** One page of the audience in id order; `next_after_id` continues it (keyset paging, stable while contacts change). */
export async function audiencePage(
  deps: ContactsDeps,
  request: AudienceRequest & { after_id: number; limit: number },
): Promise<{ contacts: Contact[]; next_after_id: number | null }> {
  const filter = await audienceFilter(deps, request);
  const stored = await deps.contacts.find(
    { ...filter, after_id: request.after_id },
    { limit: request.limit + 1 },
  );
  const more = stored.length > request.limit;
  const page = more ? stored.slice(0, request.limit) : stored;
  return {
    contacts: await presentContacts(deps, page),
    next_after_id: more ? page[page.length - 1]!.id : null,
  };
}
