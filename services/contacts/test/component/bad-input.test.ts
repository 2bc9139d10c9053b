import { ErrorResponseSchema } from '@switchboard/contracts';
import {
  startContactsSystem,
  uniquePhone,
  type Answer,
  type ApiClient,
  type ContactsSystem,
} from '../support/contacts-harness';
import type { ActingOrganization } from '../../../../test/support/forwarded-client';

jest.setTimeout(60_000);

let system: ContactsSystem;
let api: ApiClient;
let organization: ActingOrganization;
let contactId: number;
let groupId: number;

beforeAll(async () => {
  system = await startContactsSystem('badinput');
  ({ api, organization } = await system.newOrganization('premium'));
  contactId = (await api.send('POST', 'makeContact', { name: 'Ana', phone: uniquePhone() })).body
    .contact.id;
  groupId = (await api.send('POST', 'addGroup', { name: 'Known' })).body.group.id;
});

afterAll(async () => {
  await system?.stop();
});

const contact = (fields: Record<string, unknown>) => ({
  name: 'Ana',
  phone: uniquePhone(),
  ...fields,
});
const manyFields = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'x']));

type Case = [string, () => Promise<Answer>, number, RegExp];

// Each case: what is sent, the status expected, and what the message must say.
const cases: Case[] = [
  [
    'makeContact without fields',
    () => api.send('POST', 'makeContact', {}),
    422,
    /^name: .*phone: /,
  ],
  [
    'makeContact with an operator as name',
    () => api.send('POST', 'makeContact', contact({ name: { $gt: '' } })),
    422,
    /^name: /,
  ],
  [
    'makeContact with an operator as phone',
    () => api.send('POST', 'makeContact', contact({ phone: { $gt: '' } })),
    422,
    /^phone: /,
  ],
  [
    'a 7-digit phone',
    () => api.send('POST', 'makeContact', contact({ phone: '1234567' })),
    422,
    /^phone: must be 8 to 15 digits/,
  ],
  [
    'a 16-digit phone',
    () => api.send('POST', 'makeContact', contact({ phone: '1234567890123456' })),
    422,
    /^phone: /,
  ],
  [
    'a phone with letters',
    () => api.send('POST', 'makeContact', contact({ phone: '39abc4712345' })),
    422,
    /^phone: /,
  ],
  [
    'a phone with two plus signs',
    () => api.send('POST', 'makeContact', contact({ phone: '++393471234567' })),
    422,
    /^phone: /,
  ],
  [
    'a phone that is a fraction',
    () => api.send('POST', 'makeContact', contact({ phone: 39347123456.5 })),
    422,
    /^phone: /,
  ],
  [
    'a 201-character name',
    () => api.send('POST', 'makeContact', contact({ name: 'x'.repeat(201) })),
    422,
    /^name: must be at most 200/,
  ],
  [
    'a blank name',
    () => api.send('POST', 'makeContact', contact({ name: '   ' })),
    422,
    /^name: must not be empty/,
  ],
  [
    'an invalid email',
    () => api.send('POST', 'makeContact', contact({ email: 'not-an-email' })),
    422,
    /^email: /,
  ],
  [
    'an oversized email',
    () => api.send('POST', 'makeContact', contact({ email: `${'a'.repeat(300)}@example.com` })),
    422,
    /^email: /,
  ],
  [
    'groups as an operator',
    () => api.send('POST', 'makeContact', contact({ groups: { $gt: '' } })),
    422,
    /^groups: /,
  ],
  [
    'a 101-character group name',
    () => api.send('POST', 'makeContact', contact({ groups: ['x'.repeat(101)] })),
    422,
    /^groups/,
  ],
  [
    'custom as text',
    () => api.send('POST', 'makeContact', contact({ custom: 'city=Rome' })),
    422,
    /^custom: /,
  ],
  [
    'a custom value that is an operator',
    () => api.send('POST', 'makeContact', contact({ custom: { city: { $gt: '' } } })),
    422,
    /^custom\.city: /,
  ],
  [
    'a custom field named $where',
    () => api.send('POST', 'makeContact', contact({ custom: { $where: 'x' } })),
    422,
    /^custom\.\$where: field names/,
  ],
  [
    'a custom field with a dot',
    () => api.send('POST', 'makeContact', contact({ custom: { 'a.b': 'x' } })),
    422,
    /^custom\.a\.b: field names/,
  ],
  [
    '51 custom fields',
    () => api.send('POST', 'makeContact', contact({ custom: manyFields })),
    422,
    /^custom: must have at most 50/,
  ],
  [
    'a 1001-character custom value',
    () => api.send('POST', 'makeContact', contact({ custom: { note: 'x'.repeat(1001) } })),
    422,
    /^custom\.note: /,
  ],
  [
    'an unknown group id',
    () => api.send('POST', 'makeContact', contact({ groups: [groupId + 1000] })),
    404,
    /Group not found/,
  ],
  [
    'a form with phone[$gt]',
    () => api.form('POST', 'makeContact', 'name=Ana&phone[$gt]='),
    422,
    /^phone: /,
  ],
  [
    'a JSON array as body',
    () => api.send('POST', 'makeContact', [1, 2]),
    422,
    /^body: must be a JSON object/,
  ],
  [
    'updateContact with a text id',
    () => api.send('PUT', 'updateContact', { id: 'abc', name: 'x' }),
    422,
    /^id: must be a positive integer/,
  ],
  [
    'updateContact with a negative id',
    () => api.send('PUT', 'updateContact', { id: -1, name: 'x' }),
    422,
    /^id: /,
  ],
  [
    'updateContact with a fractional id',
    () => api.send('PUT', 'updateContact', { id: 1.5, name: 'x' }),
    422,
    /^id: /,
  ],
  [
    'updateContact with a huge id',
    () => api.send('PUT', 'updateContact', { id: 1e300, name: 'x' }),
    422,
    /^id: /,
  ],
  [
    'updateContact with an operator id',
    () => api.send('PUT', 'updateContact', { id: { $gt: '' }, name: 'x' }),
    422,
    /^id: /,
  ],
  [
    'updateContact of an unknown id',
    () => api.send('PUT', 'updateContact', { id: 987654321, name: 'x' }),
    404,
    /Contact not found/,
  ],
  [
    'an unknown subscription',
    () => api.send('PUT', 'updateContact', { id: contactId, subscription: 'maybe' }),
    422,
    /^subscription: /,
  ],
  [
    'a language that is a sentence',
    () => api.send('PUT', 'updateContact', { id: contactId, language: 'plain english' }),
    422,
    /^language: /,
  ],
  ['deleteContact without id', () => api.send('DELETE', 'deleteContact', {}), 422, /^id: /],
  [
    'deleteContact with an operator id',
    () => api.send('DELETE', 'deleteContact', { id: { $ne: null } }),
    422,
    /^id: /,
  ],
  ['getContacts with a text page', () => api.get('getContacts', { page: 'x' }), 422, /^page: /],
  [
    'getContacts with a negative per_page',
    () => api.get('getContacts', { per_page: -5 }),
    422,
    /^per_page: /,
  ],
  [
    'getContacts with a text group_id',
    () => api.get('getContacts', { group_id: 'abc' }),
    422,
    /^group_id: /,
  ],
  [
    'getContacts with an unknown group_id',
    () => api.get('getContacts', { group_id: groupId + 1000 }),
    404,
    /Group not found/,
  ],
  [
    'a 101-character search',
    () => api.get('getContacts', { search: 'x'.repeat(101) }),
    422,
    /^search: /,
  ],
  ['search as an operator', () => api.get('getContacts', { 'search[$gt]': '' }), 422, /^search: /],
  [
    'getSingleContact with contact_id[$gt]',
    () => api.get('getSingleContact', { 'contact_id[$gt]': '' }),
    422,
    /^contact_id: /,
  ],
  [
    'getSingleContact with a bad phone',
    () => api.get('getSingleContact', { phone: 'abc' }),
    422,
    /^phone: /,
  ],
  [
    'getGroups with showContacts=maybe',
    () => api.get('getGroups', { showContacts: 'maybe' }),
    422,
    /^showContacts: /,
  ],
  ['addGroup without a name', () => api.send('POST', 'addGroup', {}), 422, /^name: /],
  [
    'addGroup with digits only',
    () => api.send('POST', 'addGroup', { name: '2024' }),
    422,
    /^name: must contain a character other than digits/,
  ],
  [
    'updateGroup of an unknown id',
    () => api.send('PUT', 'updateGroup', { id: groupId + 1000, name: 'x' }),
    404,
    /Group not found/,
  ],
  [
    'deleteGroup with a text id',
    () => api.send('DELETE', 'deleteGroup', { id: 'one' }),
    422,
    /^id: /,
  ],
];

describe('bad input answers 4xx with a clear message, never 5xx', () => {
  test.each(cases)(
    'when %s is sent, then the answer is %p',
    async (_case, call, status, message) => {
      const answer = await call();
      expect(answer.status).toBe(status);
      const error = ErrorResponseSchema.parse(answer.body);
      expect(error.message).toMatch(message);
    },
  );

  test('when the body is not valid JSON, then the answer is 400', async () => {
    const response = await fetch(`${system.contacts.url}/api/svc/makeContact`, {
      method: 'POST',
      headers: { ...system.forwardedHeaders(organization), 'content-type': 'application/json' },
      body: '{"name": "Ana", ',
    });
    expect(response.status).toBe(400);
  });

  test('when nothing was stored by the bad requests, then the organization still has its one contact', async () => {
    const contacts = (await api.get('getContacts')).body.contacts;
    expect(contacts.map((c: { id: number }) => c.id)).toEqual([contactId]);
    const groups = (await api.get('getGroups')).body.groups;
    expect(groups.map((g: { name: string }) => g.name)).toEqual(['Known']);
  });
});
