import {
  BooleanInputSchema,
  CONTACTS_OPERATIONS,
  ContactSchema,
  CustomFieldsInputSchema,
  GetContactsQuerySchema,
  GetSingleContactQuerySchema,
  GroupNameSchema,
  GroupRefsInputSchema,
  MakeContactRequestSchema,
  PhoneSchema,
  PositiveIntegerSchema,
  UpdateContactRequestSchema,
  buildOpenApiDocument,
  normalizePhone,
} from '../../src';

describe('phone numbers (the published REST API: digits with country code, no plus)', () => {
  test.each([
    ['393471234567', '393471234567'],
    ['+39 347 123 4567', '393471234567'],
    ['+1 (555) 010-9999', '15550109999'],
    ['  4915100000000  ', '4915100000000'],
    ['12345678', '12345678'],
    ['123456789012345', '123456789012345'],
  ])('when %p is given, then it is stored as %p', (input, expected) => {
    expect(normalizePhone(input)).toBe(expected);
    expect(PhoneSchema.parse(input)).toBe(expected);
  });

  test.each([
    ['7 digits', '1234567'],
    ['16 digits', '1234567890123456'],
    ['letters', '39abc4712345'],
    ['a plus inside', '39+3471234567'],
    ['two plus signs', '++393471234567'],
    ['dots', '39.347.123.4567'],
    ['slashes', '39/3471234567'],
    ['nothing', ''],
  ])('when the phone has %s, then it is rejected', (_case, input) => {
    expect(normalizePhone(input)).toBeNull();
    expect(PhoneSchema.safeParse(input).success).toBe(false);
  });

  test('when the phone comes as a JSON integer, then it is read as its digits; a fraction or operator is not', () => {
    expect(PhoneSchema.parse(393471234567)).toBe('393471234567');
    expect(PhoneSchema.safeParse(3934712345.5).success).toBe(false);
    const operator = PhoneSchema.safeParse({ $gt: '' });
    expect(operator.success).toBe(false);
    expect(operator.error?.issues[0]?.message).toMatch(/^must be 8 to 15 digits/);
  });
});

describe('scalar inputs from JSON and forms', () => {
  test('when an id is a number or a decimal string, then it is a positive integer', () => {
    expect(PositiveIntegerSchema.parse(42)).toBe(42);
    expect(PositiveIntegerSchema.parse('042')).toBe(42);
    expect(PositiveIntegerSchema.parse('999999999999999')).toBe(999_999_999_999_999);
  });

  // Digits only, as the OpenAPI document's pattern says: what it calls valid, the server takes.
  test.each([
    [0],
    [-1],
    [1.5],
    ['0'],
    [' 42 '],
    ['1e3'],
    ['0x10'],
    [''],
    ['1'.repeat(16)],
    [true],
    [null],
    [{ $gt: '' }],
    [2 ** 60],
  ])('when an id is %p, then it is rejected', (value) => {
    expect(PositiveIntegerSchema.safeParse(value).success).toBe(false);
  });

  test.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ['TRUE', true],
    ['0', false],
  ])('when enabled is %p, then it reads %p', (value, expected) => {
    expect(BooleanInputSchema.parse(value)).toBe(expected);
  });

  test.each([['yes'], [2], [null], [{}]])('when enabled is %p, then it is rejected', (value) => {
    expect(BooleanInputSchema.safeParse(value).success).toBe(false);
  });
});

describe('makeContact groups and custom fields', () => {
  test('when groups are a comma-separated string, then digits are ids and the rest names, deduplicated', () => {
    expect(GroupRefsInputSchema.parse(' 12, VIP ,vip,, 12 ,Italy ')).toEqual([
      { id: 12 },
      { name: 'VIP' },
      { name: 'Italy' },
    ]);
  });

  test('when groups are an array of numbers and strings, then each is read the same way', () => {
    expect(GroupRefsInputSchema.parse([3, '4', 'Leads'])).toEqual([
      { id: 3 },
      { id: 4 },
      { name: 'Leads' },
    ]);
  });

  test('when a group reference is neither an id nor a valid name, then the groups are rejected', () => {
    expect(GroupRefsInputSchema.safeParse([0]).success).toBe(false);
    expect(GroupRefsInputSchema.safeParse(['x'.repeat(101)]).success).toBe(false);
    expect(GroupRefsInputSchema.safeParse({ $gt: '' }).success).toBe(false);
    expect(GroupNameSchema.safeParse('2024').success).toBe(false);
  });

  test('when custom fields hold numbers, booleans and null, then numbers and booleans become text', () => {
    expect(CustomFieldsInputSchema.parse({ city: 'Rome', age: 41, vip: true, old: null })).toEqual({
      city: 'Rome',
      age: '41',
      vip: 'true',
      old: null,
    });
  });

  test.each([
    ['a nested object', { a: { $gt: '' } }],
    ['a field starting with $', { $where: 'x' }],
    ['a field with a dot', { 'a.b': 'x' }],
    ['51 fields', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))],
    ['text', 'city=Rome'],
  ])('when custom fields are %s, then they are rejected', (_case, custom) => {
    expect(CustomFieldsInputSchema.safeParse(custom).success).toBe(false);
  });

  test('when makeContact misses name and phone, then both are named', () => {
    const result = MakeContactRequestSchema.safeParse({});
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['name', 'phone']);
  });
});

describe('other requests', () => {
  test('when updateContact has only an id, then it asks for a writable field', () => {
    const result = UpdateContactRequestSchema.safeParse({ id: 1, custom: { a: 'b' } });
    expect(result.error?.issues[0]?.message).toBe(
      'at least one of name, phone, email, language, subscription is required',
    );
  });

  test('when updateContact clears email and language with empty strings, then they become null', () => {
    expect(UpdateContactRequestSchema.parse({ id: '7', email: '', language: '' })).toEqual({
      id: 7,
      email: null,
      language: null,
    });
  });

  test('when per_page is over 1000, then getContacts is rejected; 1000 is fine', () => {
    expect(GetContactsQuerySchema.safeParse({ per_page: '1001' }).success).toBe(false);
    expect(GetContactsQuerySchema.parse({ per_page: '1000', page: '2' })).toEqual({
      per_page: 1000,
      page: 2,
    });
  });

  test('when getSingleContact has neither contact_id nor phone, then it is rejected', () => {
    expect(GetSingleContactQuerySchema.safeParse({}).success).toBe(false);
    expect(GetSingleContactQuerySchema.parse({ phone: '+39 347 1234567' })).toEqual({
      phone: '393471234567',
    });
  });

  test('when a contact answer lacks a field or has a bad phone, then it does not pass', () => {
    const contact = {
      id: 1,
      name: 'Ana',
      phone: '393471234567',
      email: null,
      language: null,
      subscription: 'subscribed',
      groups: [{ id: 2, name: 'VIP' }],
      custom: { city: 'Rome' },
      ai_bot_enabled: false,
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-01T00:00:00.000Z',
    };
    expect(ContactSchema.parse(contact)).toEqual(contact);
    expect(ContactSchema.safeParse({ ...contact, phone: '+393471234567' }).success).toBe(false);
    const { ai_bot_enabled: _flag, ...withoutFlag } = contact;
    expect(ContactSchema.safeParse(withoutFlag).success).toBe(false);
  });
});

describe('contacts in the OpenAPI document', () => {
  const document = buildOpenApiDocument();

  test('when the document is built, then every contacts operation of the API is in it with its methods', () => {
    const paths = CONTACTS_OPERATIONS.map((op) => `${op.method} ${op.path}`);
    expect(paths).toEqual([
      'get /api/svc/getContacts',
      'get /api/svc/getSingleContact',
      'post /api/svc/makeContact',
      'post /api/svc/updateContact',
      'put /api/svc/updateContact',
      'delete /api/svc/deleteContact',
      'post /api/svc/updateAIBot',
      'get /api/svc/getGroups',
      'post /api/svc/addGroup',
      'put /api/svc/updateGroup',
      'delete /api/svc/deleteGroup',
    ]);
    for (const op of CONTACTS_OPERATIONS) {
      expect(document.paths[op.path]?.[op.method]).toMatchObject({
        operationId: op.operationId,
        security: [{ tokenQuery: [] }, { tokenBearer: [] }],
      });
    }
  });

  test('when getContacts is described, then its paging and filter parameters are query parameters', () => {
    const getContacts = document.paths['/api/svc/getContacts']?.get as {
      parameters: Array<{ name: string; in: string; required: boolean }>;
    };
    expect(getContacts.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['page', 'query', false],
      ['per_page', 'query', false],
      ['limit', 'query', false],
      ['group_id', 'query', false],
      ['search', 'query', false],
    ]);
  });

  test('when makeContact is described, then name and phone are its required body fields', () => {
    const makeContact = document.paths['/api/svc/makeContact']?.post as {
      requestBody: { content: { 'application/json': { schema: { required: string[] } } } };
      responses: Record<string, unknown>;
    };
    expect(makeContact.requestBody.content['application/json'].schema.required).toEqual([
      'name',
      'phone',
    ]);
    expect(Object.keys(makeContact.responses)).toEqual(
      expect.arrayContaining(['200', '201', '422']),
    );
  });
});
