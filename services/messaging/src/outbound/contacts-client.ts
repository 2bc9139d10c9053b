import {
  CONTACTS_INTERNAL_PATHS,
  ContactsByIdsResponseSchema,
  ResolveContactResponseSchema,
  orgHeaders,
  type Contact,
  type OrgContext,
} from '@switchboard/contracts';
import { createInternalClient, createTtlCache, type Logger } from '@switchboard/service-kit';

/** What messaging needs of a contact. */
export interface ContactRef {
  id: number;
  name: string;
  phone: string;
  /** As contacts said when asked (sends check it); unknown for a contact a producer named. */
  subscription?: Contact['subscription'];
}

/**
 * When, as shares of its lifetime, a cached contact sent to again is renewed: at a point drawn
 * between the two for each entry, so that entries stored together (a campaign's, a warm-up's)
 * are not all renewed in the same second either.
 */
const RENEW_FROM = 0.5;
const RENEW_TO = 0.85;

const toRef = (contact: Contact): ContactRef => ({
  id: contact.id,
  name: contact.name,
  phone: contact.phone,
  subscription: contact.subscription,
});

/**
 * The contacts service's internal API (ARCHITECTURE §1). Sends resolve the recipient (creating it
 * within the contact quota); inbound messages resolve the sender (never refused by the quota).
 * Recently resolved phones are remembered briefly, so a burst of sends to one number asks once.
 */
export function createContactsClient(options: {
  baseURL: string;
  internalSecret: string;
  logger: Logger;
  cacheTtlMs: number;
  timeoutMs?: number;
}) {
  const client = createInternalClient({
    service: 'contacts',
    baseURL: options.baseURL,
    internalSecret: options.internalSecret,
    logger: options.logger,
    timeoutMs: options.timeoutMs,
  });
  const cache = createTtlCache<string, { contact: ContactRef; renewAt: number }>({
    ttlMs: options.cacheTtlMs,
    maxEntries: 50_000,
  });
  // A phone sent to again once its entry is past its renewal point is asked again in the
  // background, so that the entry is renewed before it expires and a regular recipient's sends
  // never wait for contacts (entries stored together, as a campaign's or a warm-up's, would
  // otherwise all expire together and their next sends all wait at once). Nothing is kept longer
  // than before: an entry still expires `cacheTtlMs` after it was stored.
  const renewAt = () =>
    Date.now() + options.cacheTtlMs * (RENEW_FROM + Math.random() * (RENEW_TO - RENEW_FROM));
  const refreshing = new Set<string>();

  async function lookup(
    key: string,
    company_id: number,
    phone: string,
    how: { name?: string; quotaOf?: OrgContext },
  ): Promise<ContactRef> {
    const response = await client.post(
      CONTACTS_INTERNAL_PATHS.resolve,
      {
        company_id,
        phone,
        ...(how.name ? { name: how.name } : {}),
        ...(how.quotaOf ? { enforce_quota: true } : {}),
      },
      how.quotaOf ? orgHeaders(how.quotaOf) : {},
    );
    if (response.status !== 200 && response.status !== 201) {
      throw client.refusal(response);
    }
    const contact = toRef(ResolveContactResponseSchema.parse(response.data).contact);
    cache.set(key, { contact, renewAt: renewAt() });
    return contact;
  }

  /** Renews an entry in the background (one renewal per key at a time); a failure keeps it. */
  function refresh(
    key: string,
    company_id: number,
    phone: string,
    how: { quotaOf?: OrgContext },
  ): void {
    if (refreshing.has(key)) return;
    refreshing.add(key);
    lookup(key, company_id, phone, how)
      .catch((error: unknown) => {
        options.logger.warn(
          { err: error },
          'contact not renewed; the cached one stays until it expires',
        );
      })
      .finally(() => refreshing.delete(key));
  }

  return {
    /**
     * The contact with this phone, created when new. With `quotaOf` (a send) a new contact counts
     * against that organization's contact quota, and a full quota answers the quota error; without
     * it (an inbound message) the contact is always stored (ARCHITECTURE §5).
     */
    async resolve(
      company_id: number,
      phone: string,
      how: { name?: string; quotaOf?: OrgContext },
    ): Promise<ContactRef> {
      const key = `${company_id}:${phone}`;
      const cached = how.name ? undefined : cache.get(key);
      if (!cached) return lookup(key, company_id, phone, how);
      if (Date.now() >= cached.renewAt) refresh(key, company_id, phone, how);
      return cached.contact;
    },

    /** The organization's contacts among `ids`; unknown ids (or another organization's) are left out. */
    async byIds(company_id: number, ids: number[]): Promise<ContactRef[]> {
      if (ids.length === 0) return [];
      const response = await client.post(CONTACTS_INTERNAL_PATHS.byIds, { company_id, ids });
      if (response.status !== 200) throw client.refusal(response);
      return ContactsByIdsResponseSchema.parse(response.data).contacts.map(toRef);
    },

    shutdown: () => client.shutdown(),
  };
}

export type ContactsClient = ReturnType<typeof createContactsClient>;
