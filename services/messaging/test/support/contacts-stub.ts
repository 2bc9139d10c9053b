import {
  CONTACTS_INTERNAL_PATHS,
  CONTACTS_OPERATIONS,
  ContactsByIdsRequestSchema,
  ContactsByIdsResponseSchema,
  OrgContextSchema,
  ResolveContactRequestSchema,
  ResolveContactResponseSchema,
  quotaExceededMessage,
  type Contact,
  type ContactsByIdsRequest,
  type ResolveContactRequest,
} from '@switchboard/contracts';
import {
  createContractStub,
  operationRoute,
  stubRoute,
  type ContractStub,
} from '../../../../test/support/contract-stub';

export interface ContactsStub extends ContractStub {
  /** The contacts the stub holds, as contacts would answer them. */
  contacts: (Contact & { company_id: number })[];
  /** From now on a send creating a new contact of this organization finds its quota full. */
  fillContactQuota(company_id: number): void;
}

const RESOLVE = {
  method: 'post',
  path: CONTACTS_INTERNAL_PATHS.resolve,
  request: { body: ResolveContactRequestSchema },
  responses: { 200: ResolveContactResponseSchema, 201: ResolveContactResponseSchema },
} as const;
const BY_IDS = {
  method: 'post',
  path: CONTACTS_INTERNAL_PATHS.byIds,
  request: { body: ContactsByIdsRequestSchema },
  responses: { 200: ContactsByIdsResponseSchema },
} as const;
const operation = (operationId: string) =>
  operationRoute(CONTACTS_OPERATIONS.find((candidate) => candidate.operationId === operationId)!);

/**
 * Contacts as messaging and its tests meet it, a contract stub keeping contacts in memory:
 * `resolve` (a contact per phone, made when new), `by-ids`, and the customer's `getSingleContact`
 * and `makeContact`. How contacts stores, validates and counts them is contacts' own tests'.
 */
export async function startContactsStub(): Promise<ContactsStub> {
  const contacts: ContactsStub['contacts'] = [];
  const fullQuota = new Set<number>();
  const shown = ({ company_id: _company, ...contact }: ContactsStub['contacts'][number]) => contact;
  const make = (company_id: number, phone: string, name: string) => {
    const now = new Date().toISOString();
    const contact = {
      company_id,
      id: contacts.length + 1,
      name,
      phone: phone.replace(/\D/g, ''),
      email: null,
      language: null,
      subscription: 'subscribed' as const,
      groups: [],
      custom: {},
      ai_bot_enabled: false,
      created_at: now,
      updated_at: now,
    };
    contacts.push(contact);
    return contact;
  };
  const find = (company_id: number, phone: string) =>
    contacts.find((c) => c.company_id === company_id && c.phone === phone.replace(/\D/g, ''));
  const quotaRefusal = (headers: Record<string, unknown>) => {
    const org = OrgContextSchema.parse(headers);
    return {
      status: 429,
      body: {
        status: 'error',
        code: 'quota_exceeded',
        message: quotaExceededMessage(org.plan, 'contacts', org.plan_started_at),
      },
    };
  };

  const stub = await createContractStub('contacts', [
    stubRoute(RESOLVE, ({ body, headers }) => {
      const request = body as ResolveContactRequest;
      const known = find(request.company_id, String(request.phone));
      if (known) {
        if (request.name && known.name === known.phone) known.name = String(request.name);
        return { status: 200, body: { status: 'success', contact: shown(known), created: false } };
      }
      if (request.enforce_quota && fullQuota.has(request.company_id)) return quotaRefusal(headers);
      const made = make(
        request.company_id,
        String(request.phone),
        String(request.name ?? request.phone),
      );
      return { status: 200, body: { status: 'success', contact: shown(made), created: true } };
    }),
    stubRoute(BY_IDS, ({ body }) => {
      const { company_id, ids } = body as ContactsByIdsRequest;
      const found = contacts.filter((c) => c.company_id === company_id && ids.includes(c.id));
      return { status: 200, body: { status: 'success', contacts: found.map(shown) } };
    }),
    stubRoute(operation('getSingleContact'), ({ query, headers }) => {
      const { company_id } = OrgContextSchema.parse(headers);
      const found = contacts.find(
        (c) =>
          c.company_id === company_id &&
          (query.contact_id ? c.id === Number(query.contact_id) : c.phone === query.phone),
      );
      return found
        ? { status: 200, body: { status: 'success', contact: shown(found) } }
        : {
            status: 404,
            body: { status: 'error', code: 'not_found', message: 'Contact not found' },
          };
    }),
    stubRoute(operation('makeContact'), ({ body, headers }) => {
      const { company_id } = OrgContextSchema.parse(headers);
      const { name, phone } = body as { name: string; phone: string };
      const made = make(company_id, phone, name);
      return { status: 201, body: { status: 'success', contact: shown(made) } };
    }),
  ]);
  return {
    ...stub,
    contacts,
    fillContactQuota: (company_id) => fullQuota.add(company_id),
  };
}
