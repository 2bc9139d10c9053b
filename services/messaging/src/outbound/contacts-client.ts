import {
  CONTACTS_INTERNAL_PATHS,
  ContactsByIdsResponseSchema,
  ERROR_CODES,
  INTERNAL_SECRET_HEADER,
  ResolveContactResponseSchema,
  orgHeaders,
  type Contact,
  type ErrorCode,
  type OrgContext,
} from '@switchboard/contracts';
import {
  AppError,
  OutboundError,
  createOutboundClient,
  type Logger,
} from '@switchboard/service-kit';

/** What messaging needs of a contact. */
export interface ContactRef {
  id: number;
  name: string;
  phone: string;
  /** As contacts said when asked (sends check it); unknown for a contact a producer named. */
  subscription?: Contact['subscription'];
}

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
  const client = createOutboundClient({
    name: 'contacts',
    baseURL: options.baseURL,
    timeoutMs: options.timeoutMs ?? 5_000,
    logger: options.logger,
  });
  const cache = new Map<string, { contact: ContactRef; expiresAt: number }>();
  const MAX_CACHED = 50_000;

  async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
    try {
      return await client.request({
        method: 'POST',
        url: path,
        data: body,
        headers: { [INTERNAL_SECRET_HEADER]: options.internalSecret, ...headers },
      });
    } catch (error) {
      if (error instanceof OutboundError) {
        throw new AppError('dependency_unavailable', 'The contacts service is unavailable', {
          cause: error,
        });
      }
      throw error;
    }
  }

  /** Passes on a 4xx of contacts (e.g. the contact quota) as it was answered. */
  function failed(status: number, data: unknown): AppError {
    const body = (data ?? {}) as { code?: string; message?: string };
    if (status >= 400 && status < 500 && body.code && body.code in ERROR_CODES) {
      return new AppError(body.code as ErrorCode, body.message ?? 'Contacts refused the request', {
        httpStatus: status,
      });
    }
    return new AppError('dependency_unavailable', `The contacts service answered ${status}`);
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
      const cached = cache.get(key);
      if (cached && cached.expiresAt > Date.now() && !how.name) return cached.contact;
      const response = await post(
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
        throw failed(response.status, response.data);
      }
      const contact = toRef(ResolveContactResponseSchema.parse(response.data).contact);
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(key, { contact, expiresAt: Date.now() + options.cacheTtlMs });
      return contact;
    },

    /** The organization's contacts among `ids`; unknown ids (or another organization's) are left out. */
    async byIds(company_id: number, ids: number[]): Promise<ContactRef[]> {
      if (ids.length === 0) return [];
      const response = await post(CONTACTS_INTERNAL_PATHS.byIds, { company_id, ids });
      if (response.status !== 200) throw failed(response.status, response.data);
      return ContactsByIdsResponseSchema.parse(response.data).contacts.map(toRef);
    },

    shutdown: () => client.shutdown(),
  };
}

export type ContactsClient = ReturnType<typeof createContactsClient>;
