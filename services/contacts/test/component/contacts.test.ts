import {
  ContactResponseSchema,
  ContactsResponseSchema,
  ErrorResponseSchema,
  QUOTA_MESSAGE_PREFIX,
  type Contact,
} from '@switchboard/contracts';
import {
  inBatches,
  startContactsSystem,
  uniquePhone,
  type ApiClient,
  type ContactsSystem,
} from '../support/contacts-harness';

jest.setTimeout(60_000);

let system: ContactsSystem;

beforeAll(async () => {
  system = await startContactsSystem('contacts');
});

afterAll(async () => {
  await system?.stop();
});

const storedContacts = (company_id: number) =>
  system.contacts.db.collection('contacts').find({ company_id }).toArray();

async function makeContact(api: ApiClient, fields: Record<string, unknown> = {}) {
  const answer = await api.send('POST', 'makeContact', {
    name: 'Ana Rossi',
    phone: uniquePhone(),
    ...fields,
  });
  if (answer.status !== 200 && answer.status !== 201) {
    throw new Error(`makeContact answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
  return ContactResponseSchema.parse(answer.body).contact;
}

describe('makeContact', () => {
  test('when a contact is made with a name and a phone, then it is created with every field of a contact', async () => {
    const { api, company_id } = await system.newOrganization();
    const phone = uniquePhone();
    const answer = await api.send('POST', 'makeContact', { name: '  Ana Rossi ', phone });

    expect(answer.status).toBe(201);
    const { contact } = ContactResponseSchema.parse(answer.body);
    expect(contact).toEqual({
      id: expect.any(Number),
      name: 'Ana Rossi',
      phone,
      email: null,
      language: null,
      subscription: 'subscribed',
      groups: [],
      custom: {},
      ai_bot_enabled: false,
      created_at: contact.updated_at,
      updated_at: expect.any(String),
    });
    expect(await storedContacts(company_id)).toEqual([
      expect.objectContaining({ id: contact.id, company_id, phone, name: 'Ana Rossi' }),
    ]);
  });

  test('when the phone has a plus, spaces, dashes and brackets, then it is stored as digits only', async () => {
    const { api } = await system.newOrganization();
    const contact = await makeContact(api, { phone: '+39 (347) 555-0101' });
    expect(contact.phone).toBe('393475550101');

    const found = await api.get('getSingleContact', { phone: '+39 347 555 0101' });
    expect(ContactResponseSchema.parse(found.body).contact.id).toBe(contact.id);
  });

  test('when the phone already has a contact, then that contact is updated and no second one is made', async () => {
    const { api, company_id } = await system.newOrganization();
    const phone = uniquePhone();
    const first = await makeContact(api, {
      phone,
      email: 'ana@example.com',
      groups: ['VIP'],
      custom: { city: 'Rome', tier: 'gold' },
    });

    const again = await api.send('POST', 'makeContact', {
      name: 'Ana R.',
      phone: `+${phone}`,
      groups: 'Newsletter',
      custom: { city: 'Milan', tier: null, age: 41 },
    });

    expect(again.status).toBe(200);
    const { contact } = ContactResponseSchema.parse(again.body);
    expect(contact).toMatchObject({
      id: first.id,
      name: 'Ana R.',
      email: 'ana@example.com',
      custom: { city: 'Milan', age: '41' },
      groups: [
        { id: expect.any(Number), name: 'VIP' },
        { id: expect.any(Number), name: 'Newsletter' },
      ],
    });
    expect(contact.updated_at > first.updated_at).toBe(true);
    expect(await storedContacts(company_id)).toHaveLength(1);
  });

  test('when the same new phone is made ten times at once, then exactly one contact exists', async () => {
    const { api, company_id } = await system.newOrganization();
    const phone = uniquePhone();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api.send('POST', 'makeContact', { name: `Caller ${i}`, phone }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 200, 201,
    ]);
    expect(new Set(answers.map((a) => a.body.contact.id)).size).toBe(1);
    expect(await storedContacts(company_id)).toHaveLength(1);
  });

  test('when the body is a form with custom[city] and a comma-separated groups list, then both are stored', async () => {
    const { api } = await system.newOrganization();
    const answer = await api.form(
      'POST',
      'makeContact',
      `name=Bea&phone=${uniquePhone()}&email=bea%40example.com&groups=Customers,%20Italy&custom[city]=Rome&custom[zip]=00100`,
    );
    expect(answer.status).toBe(201);
    const { contact } = ContactResponseSchema.parse(answer.body);
    expect(contact.custom).toEqual({ city: 'Rome', zip: '00100' });
    expect(contact.groups.map((group) => group.name)).toEqual(['Customers', 'Italy']);
    expect(contact.email).toBe('bea@example.com');
  });

  test('when groups mix ids and names, then ids are used, known names reused, unknown names created', async () => {
    const { api } = await system.newOrganization();
    const vip = (await api.send('POST', 'addGroup', { name: 'VIP' })).body.group;
    const contact = await makeContact(api, { groups: [vip.id, 'vip', 'Leads', String(vip.id)] });
    expect(contact.groups).toEqual([
      { id: vip.id, name: 'VIP' },
      { id: expect.any(Number), name: 'Leads' },
    ]);
    const groups = await api.get('getGroups');
    expect(groups.body.groups.map((g: { name: string }) => g.name)).toEqual(['VIP', 'Leads']);
  });

  test('when a group id is unknown, then the answer is 404 and neither the contact nor new groups are stored', async () => {
    const { api, company_id } = await system.newOrganization();
    const answer = await api.send('POST', 'makeContact', {
      name: 'Ana',
      phone: uniquePhone(),
      groups: ['Brand new', 987654],
    });
    expect(answer.status).toBe(404);
    expect(ErrorResponseSchema.parse(answer.body).message).toContain('987654');
    expect(await storedContacts(company_id)).toHaveLength(0);
    expect((await api.get('getGroups')).body.groups).toEqual([]);
  });
});

describe('updateContact, updateAIBot and deleteContact', () => {
  test('when updateContact is sent with POST or PUT, then only name, phone, email, language and subscription change', async () => {
    const { api } = await system.newOrganization();
    const contact = await makeContact(api, { custom: { city: 'Rome' }, groups: ['VIP'] });

    const post = await api.send('POST', 'updateContact', {
      id: contact.id,
      name: 'Ana Bianchi',
      phone: '+1 (555) 010-9999',
      email: 'ana@example.org',
      custom: { city: 'Paris' },
      groups: [],
      ai_bot_enabled: true,
      created_at: '2000-01-01T00:00:00Z',
    });
    expect(post.status).toBe(200);
    expect(ContactResponseSchema.parse(post.body).contact).toMatchObject({
      id: contact.id,
      name: 'Ana Bianchi',
      phone: '15550109999',
      email: 'ana@example.org',
      custom: { city: 'Rome' },
      groups: contact.groups,
      ai_bot_enabled: false,
      created_at: contact.created_at,
    });

    const put = await api.send('PUT', 'updateContact', {
      id: String(contact.id),
      language: 'pt_BR',
      subscription: 'unsubscribed',
      email: '',
    });
    expect(put.status).toBe(200);
    expect(put.body.contact).toMatchObject({
      language: 'pt_BR',
      subscription: 'unsubscribed',
      email: null,
      name: 'Ana Bianchi',
    });
  });

  test('when the new phone belongs to another contact, then the answer is 409 and nothing changes', async () => {
    const { api } = await system.newOrganization();
    const ana = await makeContact(api);
    const bea = await makeContact(api, { name: 'Bea' });
    const answer = await api.send('PUT', 'updateContact', { id: bea.id, phone: ana.phone });
    expect(answer.status).toBe(409);
    expect(ErrorResponseSchema.parse(answer.body).code).toBe('conflict');
    const still = await api.get('getSingleContact', { contact_id: bea.id });
    expect(still.body.contact.phone).toBe(bea.phone);
  });

  test('when updateContact names no writable field, then the answer is 422 listing them', async () => {
    const { api } = await system.newOrganization();
    const contact = await makeContact(api);
    const answer = await api.send('POST', 'updateContact', { id: contact.id, custom: { a: 'b' } });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('name, phone, email, language, subscription');
  });

  test.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ['1', true],
    ['false', false],
  ])('when updateAIBot gets enabled=%p, then ai_bot_enabled is %p', async (enabled, expected) => {
    const { api } = await system.newOrganization();
    const contact = await makeContact(api);
    if (!expected) await api.send('POST', 'updateAIBot', { id: contact.id, enabled: true });
    const answer = await api.send('POST', 'updateAIBot', { id: contact.id, enabled });
    expect(answer.status).toBe(200);
    expect(ContactResponseSchema.parse(answer.body).contact.ai_bot_enabled).toBe(expected);
  });

  test('when updateAIBot gets a value that is not a boolean, then the answer is 422 naming enabled', async () => {
    const { api } = await system.newOrganization();
    const contact = await makeContact(api);
    for (const enabled of ['maybe', 2, null, { $gt: '' }]) {
      const answer = await api.send('POST', 'updateAIBot', { id: contact.id, enabled });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toMatch(/^enabled: /);
    }
  });

  test('when a contact is deleted, then it is answered once more and is gone afterwards', async () => {
    const { api, company_id } = await system.newOrganization();
    const contact = await makeContact(api);
    const deleted = await api.send('DELETE', 'deleteContact', { id: contact.id });
    expect(deleted.status).toBe(200);
    expect(ContactResponseSchema.parse(deleted.body).contact.id).toBe(contact.id);
    expect((await api.get('getSingleContact', { contact_id: contact.id })).status).toBe(404);
    expect((await api.send('DELETE', 'deleteContact', { id: contact.id })).status).toBe(404);
    expect(await storedContacts(company_id)).toHaveLength(0);
  });

  test('when an operation is called with a method the spec does not list, then the answer is 405', async () => {
    const { api } = await system.newOrganization();
    const answer = await api.send('POST', 'deleteContact', { id: 1 });
    expect(answer.status).toBe(405);
    expect(answer.body).toMatchObject({
      status: 'error',
      code: 'method_not_allowed',
      message: 'deleteContact is called with DELETE, not POST',
    });
  });
});

describe('getContacts and getSingleContact', () => {
  let api: ApiClient;
  let ids: number[];
  let made: Contact[];
  let vipId: number;

  beforeAll(async () => {
    ({ api } = await system.newOrganization('standard'));
    vipId = (await api.send('POST', 'addGroup', { name: 'VIP' })).body.group.id;
    made = await inBatches(25, 5, (i) =>
      makeContact(api, {
        name: i === 7 ? 'Zoë Ärger' : `Person ${i}`,
        phone: `4915100000${String(i).padStart(2, '0')}`,
        ...(i % 5 === 0 ? { groups: [vipId] } : {}),
      }),
    );
    ids = made.map((contact) => contact.id).sort((a, b) => a - b);
  });

  test('when no paging parameter is given, then every contact is returned, oldest first, as one page', async () => {
    const answer = await api.get('getContacts');
    expect(answer.status).toBe(200);
    const body = ContactsResponseSchema.parse(answer.body);
    expect(body.contacts.map((contact) => contact.id)).toEqual(ids);
    expect(body.meta).toEqual({ total: 25, page: 1, per_page: 25, next_page: null });
  });

  test('when page and per_page are given, then that page is returned with the total', async () => {
    const answer = await api.get('getContacts', { page: 3, per_page: 10 });
    const body = ContactsResponseSchema.parse(answer.body);
    expect(body.contacts.map((contact) => contact.id)).toEqual(ids.slice(20));
    expect(body.meta).toEqual({ total: 25, page: 3, per_page: 10, next_page: null });

    const beyond = ContactsResponseSchema.parse((await api.get('getContacts', { page: 9 })).body);
    expect(beyond.contacts).toEqual([]);
    expect(beyond.meta).toEqual({ total: 25, page: 9, per_page: 100, next_page: null });
  });

  test('when per_page is over 1000 or page is 0, then the answer is 422 naming the parameter', async () => {
    const tooMany = await api.get('getContacts', { per_page: 1001 });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toMatch(/^per_page: /);
    const zero = await api.get('getContacts', { page: 0 });
    expect(zero.status).toBe(422);
    expect(zero.body.message).toMatch(/^page: /);
  });

  test('when group_id is given, then only its members are listed', async () => {
    const body = ContactsResponseSchema.parse(
      (await api.get('getContacts', { group_id: vipId, per_page: 100 })).body,
    );
    expect(body.contacts).toHaveLength(5);
    expect(body.meta?.total).toBe(5);
    expect(body.contacts.every((contact) => contact.groups.some((g) => g.id === vipId))).toBe(true);
  });

  test('when search is given, then names match in any case and phones match by digits', async () => {
    const byName = ContactsResponseSchema.parse(
      (await api.get('getContacts', { search: 'zoË' })).body,
    );
    expect(byName.contacts.map((contact) => contact.name)).toEqual(['Zoë Ärger']);

    const byPhone = ContactsResponseSchema.parse(
      (await api.get('getContacts', { search: '+49 151 00000 1' })).body,
    );
    expect(byPhone.contacts.map((contact) => contact.phone).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `4915100000${String(10 + i)}`),
    );
  });

  test('when search holds regular expression characters, then they match literally', async () => {
    for (const search of ['.*', 'Person (1', '[a-z]+', '$where', 'Person 1+']) {
      const answer = await api.get('getContacts', { search });
      expect(answer.status).toBe(200);
      expect(answer.body.contacts).toEqual([]);
    }
  });

  test('when getSingleContact names neither contact_id nor phone, then the answer is 422', async () => {
    const answer = await api.get('getSingleContact');
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('contact_id or phone is required');
  });

  test('when getSingleContact gets both, then both must match the same contact', async () => {
    const [first, second] = made as [Contact, Contact];
    const match = await api.get('getSingleContact', { contact_id: first.id, phone: first.phone });
    expect(match.body.contact.id).toBe(first.id);
    const mismatch = await api.get('getSingleContact', {
      contact_id: second.id,
      phone: first.phone,
    });
    expect(mismatch.status).toBe(404);
  });
});

describe('contact quota (the published plan limits)', () => {
  const fill = (api: ApiClient, count: number) => inBatches(count, 10, () => makeContact(api));

  test('when a Free organization holds 100 contacts, then the next create is refused and stores nothing; a delete frees a place', async () => {
    const { api, company_id } = await system.newOrganization('free');
    const made = await fill(api, 100);

    const refused = await api.send('POST', 'makeContact', {
      name: 'One too many',
      phone: uniquePhone(),
      groups: 'Never created',
    });
    expect(refused.status).toBe(429);
    const error = ErrorResponseSchema.parse(refused.body);
    expect(error.code).toBe('quota_exceeded');
    expect(error.message.startsWith(QUOTA_MESSAGE_PREFIX)).toBe(true);
    expect(await storedContacts(company_id)).toHaveLength(100);
    expect((await api.get('getGroups')).body.groups).toEqual([]);

    // Updating an existing contact is no new contact: still allowed at the limit.
    const update = await api.send('POST', 'makeContact', {
      name: 'Renamed',
      phone: made[0]!.phone,
    });
    expect(update.status).toBe(200);

    await api.send('DELETE', 'deleteContact', { id: made[1]!.id });
    expect(
      (await api.send('POST', 'makeContact', { name: 'Fits', phone: uniquePhone() })).status,
    ).toBe(201);
    expect(
      (await api.send('POST', 'makeContact', { name: 'No', phone: uniquePhone() })).status,
    ).toBe(429);
  });

  test('when 20 creates race at 99 contacts, then exactly one succeeds', async () => {
    const { api, company_id } = await system.newOrganization('free');
    await fill(api, 99);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.send('POST', 'makeContact', { name: 'Racer', phone: uniquePhone() }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(19);
    expect(await storedContacts(company_id)).toHaveLength(100);
  });

  test.each(['standard', 'premium'] as const)(
    'when a %s organization holds 100 contacts, then it can still create more',
    async (plan) => {
      const { api } = await system.newOrganization(plan);
      await fill(api, 100);
      expect(
        (await api.send('POST', 'makeContact', { name: 'More', phone: uniquePhone() })).status,
      ).toBe(201);
    },
  );

  test('when the free trial has ended, then creating a contact answers the quota error', async () => {
    const organization = {
      company_id: 900_001,
      plan: 'free' as const,
      plan_started_at: new Date(Date.now() - 31 * 24 * 3600 * 1000),
    };
    const answer = await system.direct('POST', '/api/svc/makeContact', organization, {
      name: 'Late',
      phone: uniquePhone(),
    });
    expect(answer.status).toBe(429);
    expect(answer.body.message).toMatch(/^You have exceeded the limit .*trial has ended/);
  });
});
