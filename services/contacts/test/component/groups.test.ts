import {
  ContactsResponseSchema,
  GroupResponseSchema,
  GroupsResponseSchema,
} from '@switchboard/contracts';
import {
  startContactsSystem,
  uniquePhone,
  type ApiClient,
  type ContactsSystem,
} from '../support/contacts-harness';

jest.setTimeout(60_000);

let system: ContactsSystem;

beforeAll(async () => {
  system = await startContactsSystem('groups');
});

afterAll(async () => {
  await system?.stop();
});

async function addGroup(api: ApiClient, name: string) {
  const answer = await api.send('POST', 'addGroup', { name });
  expect(answer.status).toBe(201);
  return GroupResponseSchema.parse(answer.body).group;
}

const member = (api: ApiClient, name: string, groups: unknown) =>
  api.send('POST', 'makeContact', { name, phone: uniquePhone(), groups });

describe('groups', () => {
  test('when a group is added, then it is answered and listed without members', async () => {
    const { api } = await system.newOrganization();
    const group = await addGroup(api, '  Customers ');
    expect(group).toEqual({
      id: expect.any(Number),
      name: 'Customers',
      created_at: expect.any(String),
      updated_at: group.created_at,
    });
    const listed = GroupsResponseSchema.parse((await api.get('getGroups')).body);
    expect(listed.groups).toEqual([group]);
  });

  test('when a group name is taken in any case, then adding or renaming to it answers 409', async () => {
    const { api } = await system.newOrganization();
    await addGroup(api, 'Leads');
    const other = await addGroup(api, 'Partners');
    const added = await api.send('POST', 'addGroup', { name: 'LEADS' });
    expect(added.status).toBe(409);
    expect(added.body.message).toContain('Leads'.toUpperCase());
    const renamed = await api.send('PUT', 'updateGroup', { id: other.id, name: 'leads' });
    expect(renamed.status).toBe(409);
    const names = (await api.get('getGroups')).body.groups.map((g: { name: string }) => g.name);
    expect(names).toEqual(['Leads', 'Partners']);
  });

  test('when getGroups is asked with showContacts=yes, then each group embeds its members', async () => {
    const { api } = await system.newOrganization();
    const vip = await addGroup(api, 'VIP');
    const empty = await addGroup(api, 'Empty');
    const ana = (await member(api, 'Ana', [vip.id, 'Italy'])).body.contact;
    const bea = (await member(api, 'Bea', 'VIP')).body.contact;
    await member(api, 'Cid', []);

    const { groups } = GroupsResponseSchema.parse(
      (await api.get('getGroups', { showContacts: 'yes' })).body,
    );
    expect(groups.map((g) => [g.name, g.contacts?.map((c) => c.name)])).toEqual([
      ['VIP', ['Ana', 'Bea']],
      ['Empty', []],
      ['Italy', ['Ana']],
    ]);
    expect(groups[0]!.contacts![0]).toEqual(ana);
    expect(groups[0]!.contacts![1]).toEqual(bea);
    expect(groups.find((g) => g.id === empty.id)?.contacts).toEqual([]);

    const without = (await api.get('getGroups', { showContacts: 'no' })).body.groups;
    expect(without.every((g: object) => !('contacts' in g))).toBe(true);
  });

  test('when a group is renamed, then its contacts show the new name', async () => {
    const { api } = await system.newOrganization();
    const group = await addGroup(api, 'Old name');
    const contact = (await member(api, 'Ana', [group.id])).body.contact;
    const renamed = await api.send('PUT', 'updateGroup', { id: group.id, name: 'New name' });
    expect(renamed.status).toBe(200);
    expect(GroupResponseSchema.parse(renamed.body).group).toMatchObject({
      id: group.id,
      name: 'New name',
      created_at: group.created_at,
    });
    const after = await api.get('getSingleContact', { contact_id: contact.id });
    expect(after.body.contact.groups).toEqual([{ id: group.id, name: 'New name' }]);
  });

  test('when a group is deleted, then its contacts stay and lose only that membership', async () => {
    const { api } = await system.newOrganization();
    const doomed = await addGroup(api, 'Doomed');
    const kept = await addGroup(api, 'Kept');
    const contact = (await member(api, 'Ana', [doomed.id, kept.id])).body.contact;

    const deleted = await api.send('DELETE', 'deleteGroup', { id: doomed.id });
    expect(deleted.status).toBe(200);
    expect(GroupResponseSchema.parse(deleted.body).group.id).toBe(doomed.id);

    const after = await api.get('getSingleContact', { contact_id: contact.id });
    expect(after.body.contact.groups).toEqual([{ id: kept.id, name: 'Kept' }]);
    const stored = await system.contacts.db.collection('contacts').findOne({ id: contact.id });
    expect(stored?.group_ids).toEqual([kept.id]);
    expect((await api.get('getContacts', { group_id: doomed.id })).status).toBe(404);
    expect((await api.send('DELETE', 'deleteGroup', { id: doomed.id })).status).toBe(404);
    const listed = ContactsResponseSchema.parse((await api.get('getContacts')).body);
    expect(listed.contacts.map((c) => c.id)).toEqual([contact.id]);
  });

  test('when the same new group name is used by parallel makeContact calls, then one group is created', async () => {
    const { api } = await system.newOrganization();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => member(api, `P${i}`, 'Launch party')),
    );
    expect(answers.every((answer) => answer.status === 201)).toBe(true);
    const { groups } = GroupsResponseSchema.parse(
      (await api.get('getGroups', { showContacts: 'yes' })).body,
    );
    expect(groups).toHaveLength(1);
    expect(groups[0]!.contacts).toHaveLength(8);
  });
});
