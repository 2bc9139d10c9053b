import {
  CONTACTS_INTERNAL_PATHS,
  ContactResponseSchema,
  InternalUpdateContactResponseSchema,
} from '@switchboard/contracts';
import { startContactsSystem, uniquePhone, type ContactsSystem } from '../support/contacts-harness';

jest.setTimeout(30_000);

let system: ContactsSystem;

beforeAll(async () => {
  system = await startContactsSystem('internalupdate');
});

afterAll(async () => {
  await system?.stop();
});

const update = (body: Record<string, unknown>) =>
  system.internal(CONTACTS_INTERNAL_PATHS.update, body);

async function newContact(custom: Record<string, string> = {}) {
  const org = await system.newOrganization('standard');
  const made = await org.api.send('POST', 'makeContact', {
    name: 'Ana',
    phone: uniquePhone(),
    custom,
  });
  expect(made.status).toBe(201);
  return { org, contact: ContactResponseSchema.parse(made.body).contact };
}

describe('POST /internal/contacts/update (what a flow step changes)', () => {
  test('when fields, custom fields and groups are given, then the contact has them and getSingleContact shows it', async () => {
    const { org, contact } = await newContact({ city: 'Rome', tier: 'gold' });
    const group = await org.api.send('POST', 'addGroup', { name: 'Leads' });
    expect(group.status).toBe(201);

    const answer = await update({
      company_id: org.company_id,
      id: contact.id,
      email: 'ana@example.com',
      language: 'pt_BR',
      custom: { size: 'M', tier: null },
      groups: [group.body.group.id, 'Asked for a size'],
    });
    expect(answer.status).toBe(200);
    const updated = InternalUpdateContactResponseSchema.parse(answer.body).contact;
    expect(updated).toMatchObject({
      id: contact.id,
      name: 'Ana',
      email: 'ana@example.com',
      language: 'pt_BR',
      custom: { city: 'Rome', size: 'M' },
    });
    expect(updated.groups.map((g) => g.name).sort()).toEqual(['Asked for a size', 'Leads']);

    const read = await org.api.get('getSingleContact', { contact_id: contact.id });
    expect(ContactResponseSchema.parse(read.body).contact).toEqual(updated);
  });

  test('when a value breaks the public rules, then 422 names the field and nothing changes', async () => {
    const { org, contact } = await newContact();
    const badEmail = await update({ company_id: org.company_id, id: contact.id, email: 'no' });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body).toMatchObject({ status: 'error', code: 'validation_failed' });
    expect(badEmail.body.message).toMatch(/^email: /);

    const badKey = await update({
      company_id: org.company_id,
      id: contact.id,
      custom: { '-bad': 'x' },
    });
    expect(badKey.status).toBe(422);
    expect(badKey.body.message).toMatch(/custom/);

    const nothing = await update({ company_id: org.company_id, id: contact.id });
    expect(nothing.status).toBe(422);

    const read = await org.api.get('getSingleContact', { contact_id: contact.id });
    expect(read.body.contact).toMatchObject({ email: null, custom: {} });
  });

  test('when the contact or a group id belongs to another organization, then 404 and nothing changes', async () => {
    const { org, contact } = await newContact();
    const other = await system.newOrganization('standard');
    const foreignGroup = await other.api.send('POST', 'addGroup', { name: 'Theirs' });

    const foreignContact = await update({
      company_id: other.company_id,
      id: contact.id,
      name: 'X',
    });
    expect(foreignContact.status).toBe(404);
    expect(foreignContact.body.code).toBe('not_found');

    const withForeignGroup = await update({
      company_id: org.company_id,
      id: contact.id,
      groups: [foreignGroup.body.group.id],
      name: 'Changed',
    });
    expect(withForeignGroup.status).toBe(404);

    const read = await org.api.get('getSingleContact', { contact_id: contact.id });
    expect(read.body.contact).toMatchObject({ name: 'Ana', groups: [] });
  });

  test('when the internal secret is wrong, then 403 and nothing changes', async () => {
    const { org, contact } = await newContact();
    const refused = await system.internal(
      CONTACTS_INTERNAL_PATHS.update,
      { company_id: org.company_id, id: contact.id, name: 'Mallory' },
      'wrong-secret',
    );
    expect(refused.status).toBe(403);
    const read = await org.api.get('getSingleContact', { contact_id: contact.id });
    expect(read.body.contact.name).toBe('Ana');
  });
});
