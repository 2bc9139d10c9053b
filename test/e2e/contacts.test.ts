import {
  ContactResponseSchema,
  ContactsResponseSchema,
  GroupsResponseSchema,
} from '@switchboard/contracts';
import { startE2eSystem, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let gateway: string;

beforeAll(async () => {
  e2e = await startE2eSystem('e2econtacts');
  gateway = e2e.gateway;
});

afterAll(async () => {
  await e2e?.stop();
});

async function createOrganization(name: string) {
  return (await e2e.createOrganization(name)).token;
}

describe('contacts, every service its own process, through the gateway', () => {
  test('when a contact is made from a form, then it is listed, fetched by phone and grouped', async () => {
    const token = await createOrganization('Contacts Co');
    const made = await fetch(`${gateway}/api/svc/makeContact`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${token}&name=Ana&phone=%2B39%20347%20000%201111&groups=VIP&custom[city]=Rome`,
    });
    expect(made.status).toBe(201);
    const { contact } = ContactResponseSchema.parse(await jsonBody(made));
    expect(contact).toMatchObject({ phone: '393470001111', custom: { city: 'Rome' } });

    const listed = await fetch(`${gateway}/api/svc/getContacts?token=${token}`);
    expect(ContactsResponseSchema.parse(await jsonBody(listed)).contacts).toEqual([contact]);

    const single = await fetch(
      `${gateway}/api/svc/getSingleContact?token=${token}&phone=393470001111`,
    );
    expect(ContactResponseSchema.parse(await jsonBody(single)).contact).toEqual(contact);

    const groups = await fetch(`${gateway}/api/svc/getGroups?token=${token}&showContacts=yes`);
    const [vip] = GroupsResponseSchema.parse(await jsonBody(groups)).groups;
    expect(vip?.contacts).toEqual([contact]);
  });

  test("when an organization asks for another organization's contact, then it gets 404", async () => {
    const owner = await createOrganization('Owner');
    const other = await createOrganization('Other');
    const made = await fetch(`${gateway}/api/svc/makeContact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: owner, name: 'Private', phone: '393470002222' }),
    });
    const { contact } = ContactResponseSchema.parse(await jsonBody(made));
    const peek = await fetch(
      `${gateway}/api/svc/getSingleContact?token=${other}&contact_id=${contact.id}`,
    );
    expect(peek.status).toBe(404);
    const remove = await fetch(`${gateway}/api/svc/deleteContact`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: other, id: contact.id }),
    });
    expect(remove.status).toBe(404);
  });

  test('when the contacts process restarts, then its contacts are still there', async () => {
    const token = await createOrganization('Durable Co');
    await fetch(`${gateway}/api/svc/makeContact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name: 'Durable', phone: '393470003333' }),
    });
    await e2e.system.stopService('contacts');
    await e2e.system.startService('contacts');
    const listed = await fetch(`${gateway}/api/svc/getContacts?token=${token}`);
    const { contacts } = ContactsResponseSchema.parse(await jsonBody(listed));
    expect(contacts.map((c) => c.name)).toEqual(['Durable']);
  });
});
