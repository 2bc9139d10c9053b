import {
  AudienceCountResponseSchema,
  AudiencePageResponseSchema,
  CONTACTS_INTERNAL_PATHS,
  CONTACTS_OPERATIONS,
  ContactSchema,
  ContactsByIdsResponseSchema,
  ErrorResponseSchema,
  GroupSchema,
  ResolveContactResponseSchema,
  buildOpenApiDocument,
  type Contact,
  type HttpMethod,
  type Operation,
} from '@switchboard/contracts';
import {
  inBatches,
  startContactsSystem,
  uniquePhone,
  type Answer,
  type ApiClient,
  type ContactsSystem,
} from '../support/contacts-harness';

jest.setTimeout(60_000);

let system: ContactsSystem;

beforeAll(async () => {
  system = await startContactsSystem('contract');
});

afterAll(async () => {
  await system?.stop();
});

const CONTACT_KEYS = Object.keys(ContactSchema.shape).sort();
const GROUP_KEYS = Object.keys(GroupSchema.shape).sort();

/** Every contact and group in a body has exactly the documented keys: nothing internal leaks. */
function expectExactKeys(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(expectExactKeys);
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  if ('phone' in record && 'subscription' in record) {
    expect(Object.keys(record).sort()).toEqual(CONTACT_KEYS);
  } else if ('name' in record && 'created_at' in record) {
    const keys = GROUP_KEYS.filter((key) => key !== 'contacts' || 'contacts' in record);
    expect(Object.keys(record).sort()).toEqual(keys);
  }
  Object.values(record).forEach(expectExactKeys);
}

/** The answer is one the OpenAPI operation documents, for its status, with nothing more. */
function expectDocumented(method: HttpMethod, operation: string, answer: Answer) {
  const described = CONTACTS_OPERATIONS.find(
    (candidate) => candidate.path === `/api/svc/${operation}` && candidate.method === method,
  );
  expect(described).toBeDefined();
  const responses: Operation['responses'] = described!.responses;
  const schema = responses[answer.status];
  if (!schema) throw new Error(`${operation} answered undocumented ${answer.status}`);
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success) throw parsed.error;
  expectExactKeys(answer.body);
  return answer.body;
}

function expectError(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(ErrorResponseSchema.strict().parse(answer.body).code).toBe(code);
}

describe('public operations answer what the contracts document', () => {
  let api: ApiClient;
  let contact: Contact;

  beforeAll(async () => {
    ({ api } = await system.newOrganization());
  });

  test('when each operation succeeds, then its answer matches its documented response schema', async () => {
    const made = await api.send('POST', 'makeContact', {
      name: 'Ana',
      phone: uniquePhone(),
      groups: 'VIP',
      custom: { city: 'Rome' },
    });
    contact = expectDocumented('post', 'makeContact', made).contact as Contact;
    expectDocumented(
      'post',
      'makeContact',
      await api.send('POST', 'makeContact', { name: 'Ana B', phone: contact.phone }),
    );
    expectDocumented('get', 'getContacts', await api.get('getContacts'));
    expectDocumented('get', 'getContacts', await api.get('getContacts', { page: 1, per_page: 5 }));
    expectDocumented(
      'get',
      'getSingleContact',
      await api.get('getSingleContact', { contact_id: contact.id }),
    );
    expectDocumented(
      'post',
      'updateContact',
      await api.send('POST', 'updateContact', { id: contact.id, language: 'en' }),
    );
    expectDocumented(
      'put',
      'updateContact',
      await api.send('PUT', 'updateContact', { id: contact.id, language: 'it' }),
    );
    expectDocumented(
      'post',
      'updateAIBot',
      await api.send('POST', 'updateAIBot', { id: contact.id, enabled: 1 }),
    );
    const group = expectDocumented(
      'post',
      'addGroup',
      await api.send('POST', 'addGroup', { name: 'Team' }),
    ).group;
    expectDocumented('get', 'getGroups', await api.get('getGroups'));
    expectDocumented('get', 'getGroups', await api.get('getGroups', { showContacts: 'yes' }));
    expectDocumented(
      'put',
      'updateGroup',
      await api.send('PUT', 'updateGroup', { id: group.id, name: 'Team B' }),
    );
    expectDocumented(
      'delete',
      'deleteGroup',
      await api.send('DELETE', 'deleteGroup', { id: group.id }),
    );
    expectDocumented(
      'delete',
      'deleteContact',
      await api.send('DELETE', 'deleteContact', { id: contact.id }),
    );
  });

  test('when an operation fails, then the answer is exactly the error envelope', async () => {
    expectError(await api.get('getSingleContact', { contact_id: 999_999 }), 404, 'not_found');
    expectError(await api.send('POST', 'makeContact', { name: 'x' }), 422, 'validation_failed');
    await api.send('POST', 'addGroup', { name: 'Dup' });
    expectError(await api.send('POST', 'addGroup', { name: 'dup' }), 409, 'conflict');
    expectError(await api.send('PUT', 'addGroup', { name: 'Other' }), 405, 'method_not_allowed');
  });

  test('when the OpenAPI document the gateway serves is built, then every contacts operation is in it', () => {
    const document = buildOpenApiDocument() as unknown as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    for (const operation of CONTACTS_OPERATIONS) {
      expect(document.paths[operation.path]?.[operation.method]?.operationId).toBe(
        operation.operationId,
      );
    }
    const documented = CONTACTS_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`);
    expect(documented).toEqual([
      'GET /api/svc/getContacts',
      'GET /api/svc/getSingleContact',
      'POST /api/svc/makeContact',
      'POST /api/svc/updateContact',
      'PUT /api/svc/updateContact',
      'DELETE /api/svc/deleteContact',
      'POST /api/svc/updateAIBot',
      'GET /api/svc/getGroups',
      'POST /api/svc/addGroup',
      'PUT /api/svc/updateGroup',
      'DELETE /api/svc/deleteGroup',
    ]);
  });
});

describe('internal API (contracts/http/contacts-internal-api)', () => {
  test('when another service calls without the internal secret, then it is refused with 403', async () => {
    const answer = await system.internal(
      CONTACTS_INTERNAL_PATHS.resolve,
      { company_id: 1, phone: uniquePhone() },
      'not-the-secret-at-all',
    );
    expectError(answer, 403, 'forbidden');
  });

  test('when a phone is resolved, then it is created once and found afterwards, in any format', async () => {
    const { company_id, api } = await system.newOrganization();
    const phone = uniquePhone();
    const first = await system.internal(CONTACTS_INTERNAL_PATHS.resolve, {
      company_id,
      phone: `+${phone}`,
      name: 'WhatsApp Name',
    });
    expect(first.status).toBe(201);
    const created = ResolveContactResponseSchema.parse(first.body);
    expect(created).toMatchObject({ created: true, contact: { phone, name: 'WhatsApp Name' } });
    expectExactKeys(first.body);

    const again = await system.internal(CONTACTS_INTERNAL_PATHS.resolve, { company_id, phone });
    expect(again.status).toBe(200);
    expect(ResolveContactResponseSchema.parse(again.body)).toEqual({ ...created, created: false });
    expect((await api.get('getSingleContact', { phone })).body.contact.id).toBe(created.contact.id);
  });

  test('when a phone first resolved without a name is resolved with one, then the contact takes that name', async () => {
    const { company_id } = await system.newOrganization();
    const phone = uniquePhone();
    const bare = await system.internal(CONTACTS_INTERNAL_PATHS.resolve, { company_id, phone });
    expect(ResolveContactResponseSchema.parse(bare.body).contact.name).toBe(phone);
    const named = await system.internal(CONTACTS_INTERNAL_PATHS.resolve, {
      company_id,
      phone,
      name: 'Profile Name',
    });
    expect(ResolveContactResponseSchema.parse(named.body)).toMatchObject({
      created: false,
      contact: { name: 'Profile Name' },
    });
    const renamedByBusiness = await system.internal(CONTACTS_INTERNAL_PATHS.resolve, {
      company_id,
      phone,
      name: 'Another Profile Name',
    });
    expect(renamedByBusiness.body.contact.name).toBe('Profile Name');
  });

  test('when a Free organization is at its contact limit, then resolving a new phone still stores it', async () => {
    const { company_id, api } = await system.newOrganization('free');
    await inBatches(100, 10, () =>
      api.send('POST', 'makeContact', { name: 'Fill', phone: uniquePhone() }),
    );
    expectError(
      await api.send('POST', 'makeContact', { name: 'No', phone: uniquePhone() }),
      429,
      'quota_exceeded',
    );

    const inbound = await system.internal(CONTACTS_INTERNAL_PATHS.resolve, {
      company_id,
      phone: uniquePhone(),
    });
    expect(inbound.status).toBe(201);
    expect(ResolveContactResponseSchema.parse(inbound.body).created).toBe(true);
    expect(await system.contacts.db.collection('contacts').countDocuments({ company_id })).toBe(
      101,
    );
  });

  test('when a resolve request is invalid, then the answer is 422 naming the field', async () => {
    const answer = await system.internal(CONTACTS_INTERNAL_PATHS.resolve, {
      company_id: '1',
      phone: { $gt: '' },
    });
    expectError(answer, 422, 'validation_failed');
    expect(answer.body.message).toMatch(/company_id: .*phone: /);
  });

  describe('audiences and contacts by id', () => {
    let company_id: number;
    let vip: number;
    let all: Contact[];

    beforeAll(async () => {
      const organization = await system.newOrganization('premium');
      company_id = organization.company_id;
      const api = organization.api;
      vip = (await api.send('POST', 'addGroup', { name: 'VIP' })).body.group.id;
      all = (
        await inBatches(
          12,
          4,
          async (i) =>
            (
              await api.send('POST', 'makeContact', {
                name: `Member ${i}`,
                phone: uniquePhone(),
                groups: i % 2 === 0 ? [vip] : [],
              })
            ).body.contact as Contact,
        )
      ).sort((a, b) => a.id - b.id);
      // Two of them unsubscribe: audiences leave them out unless asked not to.
      for (const gone of [all[0]!, all[1]!]) {
        await api.send('PUT', 'updateContact', { id: gone.id, subscription: 'unsubscribed' });
      }
    });

    test("when contacts are fetched by ids, then only the organization's come back, in id order", async () => {
      const stranger = (await system.newOrganization()).company_id;
      const ids = [all[5]!.id, all[2]!.id, 999_999];
      const answer = await system.internal(CONTACTS_INTERNAL_PATHS.byIds, { company_id, ids });
      expect(answer.status).toBe(200);
      const body = ContactsByIdsResponseSchema.parse(answer.body);
      expect(body.contacts.map((c) => c.id)).toEqual([all[2]!.id, all[5]!.id]);
      expectExactKeys(answer.body);
      const other = await system.internal(CONTACTS_INTERNAL_PATHS.byIds, {
        company_id: stranger,
        ids,
      });
      expect(ContactsByIdsResponseSchema.parse(other.body).contacts).toEqual([]);
    });

    test('when all subscribed contacts are paged, then keyset pages cover each exactly once', async () => {
      const seen: number[] = [];
      let after_id = 0;
      for (let page = 0; page < 10; page++) {
        const answer = await system.internal(CONTACTS_INTERNAL_PATHS.audience, {
          company_id,
          audience: { type: 'all' },
          after_id,
          limit: 4,
        });
        const body = AudiencePageResponseSchema.parse(answer.body);
        seen.push(...body.contacts.map((c) => c.id));
        if (body.next_after_id === null) break;
        after_id = body.next_after_id;
      }
      expect(seen).toEqual(all.slice(2).map((c) => c.id));
      const count = await system.internal(CONTACTS_INTERNAL_PATHS.audienceCount, {
        company_id,
        audience: { type: 'all' },
      });
      expect(AudienceCountResponseSchema.parse(count.body).total).toBe(10);
    });

    test('when the audience is a group or contact ids, then only those subscribed contacts are in it', async () => {
      const group = await system.internal(CONTACTS_INTERNAL_PATHS.audience, {
        company_id,
        audience: { type: 'groups', group_ids: [vip] },
      });
      const members = all.filter((_, i) => i > 1 && all[i]!.groups.length > 0).map((c) => c.id);
      expect(AudiencePageResponseSchema.parse(group.body)).toMatchObject({ next_after_id: null });
      expect(group.body.contacts.map((c: Contact) => c.id)).toEqual(members);

      const picked = await system.internal(CONTACTS_INTERNAL_PATHS.audienceCount, {
        company_id,
        audience: { type: 'contacts', contact_ids: [all[0]!.id, all[3]!.id, all[4]!.id] },
      });
      expect(picked.body.total).toBe(2);
      const withUnsubscribed = await system.internal(CONTACTS_INTERNAL_PATHS.audienceCount, {
        company_id,
        audience: { type: 'contacts', contact_ids: [all[0]!.id, all[3]!.id, all[4]!.id] },
        include_unsubscribed: true,
      });
      expect(withUnsubscribed.body.total).toBe(3);
    });

    test('when an audience names a group the organization does not have, then the answer is 404', async () => {
      const answer = await system.internal(CONTACTS_INTERNAL_PATHS.audienceCount, {
        company_id,
        audience: { type: 'groups', group_ids: [vip, vip + 1000] },
      });
      expectError(answer, 404, 'not_found');
      expect(answer.body.message).toContain(String(vip + 1000));
    });
  });
});
