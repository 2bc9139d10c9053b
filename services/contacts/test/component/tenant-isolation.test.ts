import { ErrorResponseSchema, type Contact, type Group } from '@switchboard/contracts';
import {
  startContactsSystem,
  uniquePhone,
  type ApiClient,
  type ContactsSystem,
} from '../support/contacts-harness';

jest.setTimeout(60_000);

let system: ContactsSystem;
let owner: ApiClient;
let intruder: ApiClient;
let contact: Contact;
let group: Group;
let snapshot: () => Promise<unknown>;

beforeAll(async () => {
  system = await startContactsSystem('isolation');
  owner = (await system.newOrganization('premium')).api;
  intruder = (await system.newOrganization('premium')).api;
  group = (await owner.send('POST', 'addGroup', { name: 'Owners only' })).body.group;
  contact = (
    await owner.send('POST', 'makeContact', {
      name: 'Private Person',
      phone: uniquePhone(),
      email: 'private@example.com',
      groups: [group.id],
      custom: { secret: 'yes' },
    })
  ).body.contact;
  // Everything the owner can see: nothing an intruder does may change it.
  snapshot = async () => ({
    contacts: (await owner.get('getContacts')).body,
    groups: (await owner.get('getGroups', { showContacts: 'yes' })).body,
  });
});

afterAll(async () => {
  await system?.stop();
});

const intrusions: Array<[string, () => Promise<{ status: number; body: unknown }>]> = [
  ['getSingleContact by id', () => intruder.get('getSingleContact', { contact_id: contact.id })],
  ['getSingleContact by phone', () => intruder.get('getSingleContact', { phone: contact.phone })],
  [
    'updateContact',
    () => intruder.send('PUT', 'updateContact', { id: contact.id, name: 'Hijacked' }),
  ],
  [
    'updateContact with POST',
    () => intruder.send('POST', 'updateContact', { id: contact.id, subscription: 'unsubscribed' }),
  ],
  ['deleteContact', () => intruder.send('DELETE', 'deleteContact', { id: contact.id })],
  ['updateAIBot', () => intruder.send('POST', 'updateAIBot', { id: contact.id, enabled: true })],
  ['getContacts by group_id', () => intruder.get('getContacts', { group_id: group.id })],
  ['updateGroup', () => intruder.send('PUT', 'updateGroup', { id: group.id, name: 'Mine now' })],
  ['deleteGroup', () => intruder.send('DELETE', 'deleteGroup', { id: group.id })],
  [
    'makeContact into the group',
    () =>
      intruder.send('POST', 'makeContact', {
        name: 'Sneaky',
        phone: uniquePhone(),
        groups: [group.id],
      }),
  ],
];

describe('tenant isolation', () => {
  test.each(intrusions)(
    "when another organization calls %s with the owner's ids or phone, then it gets 404 and nothing changes",
    async (_operation, call) => {
      const before = await snapshot();
      const answer = await call();
      expect(answer.status).toBe(404);
      expect(ErrorResponseSchema.parse(answer.body).code).toBe('not_found');
      expect(await snapshot()).toEqual(before);
    },
  );

  test("when another organization makes a contact with the owner's phone, then it gets its own contact", async () => {
    const before = await snapshot();
    const answer = await intruder.send('POST', 'makeContact', {
      name: 'Same Phone',
      phone: contact.phone,
    });
    expect(answer.status).toBe(201);
    expect(answer.body.contact.id).not.toBe(contact.id);
    expect(answer.body.contact.groups).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  test("when another organization lists contacts and groups, then none of the owner's appear", async () => {
    const contacts = (await intruder.get('getContacts')).body.contacts as Contact[];
    expect(contacts.map((c) => c.id)).not.toContain(contact.id);
    const search = (await intruder.get('getContacts', { search: 'Private' })).body.contacts;
    expect(search).toEqual([]);
    const groups = (await intruder.get('getGroups', { showContacts: 'yes' })).body.groups;
    expect(groups).toEqual([]);
  });

  test("when another organization asks the internal API for the owner's contacts, then none come back", async () => {
    const intruderId = (await system.newOrganization()).company_id;
    const byIds = await system.internal('/internal/contacts/by-ids', {
      company_id: intruderId,
      ids: [contact.id],
    });
    expect(byIds.body.contacts).toEqual([]);
    const audience = await system.internal('/internal/contacts/audience', {
      company_id: intruderId,
      audience: { type: 'groups', group_ids: [group.id] },
    });
    expect(audience.status).toBe(404);
  });
});
