import {
  ContactResponseSchema,
  ContactsResponseSchema,
  CreateOrganizationResponseSchema,
  GroupsResponseSchema,
} from '@switchboard/contracts';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  freePortBlock,
  isolatedAmqpUrl,
  jsonBody,
  randomSecret,
  uniquePrefix,
} from '../support/test-infra';
import { PORT_SPAN, launchSystem, type LaunchedSystem } from '../../scripts/launcher';

jest.setTimeout(120_000);

const prefix = uniquePrefix('e2econtacts');
const adminToken = randomSecret();
let system: LaunchedSystem;
let gateway: string;
let broker: Awaited<ReturnType<typeof isolatedAmqpUrl>>;

beforeAll(async () => {
  broker = await isolatedAmqpUrl('e2econtacts');
  system = await launchSystem({
    env: {
      MONGODB_URL,
      MONGODB_DB_PREFIX: prefix,
      AMQP_URL: broker.url,
      ADMIN_API_TOKEN: adminToken,
      INTERNAL_API_SECRET: randomSecret(),
      LOG_LEVEL: 'warn',
    },
    basePort: await freePortBlock(PORT_SPAN),
  });
  gateway = system.urls.gateway;
});

afterAll(async () => {
  await system?.stop();
  await dropDatabasesWithPrefix(prefix);
  await broker?.drop();
});

async function createOrganization(name: string) {
  const response = await fetch(`${gateway}/admin/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, plan: 'free' }),
  });
  expect(response.status).toBe(201);
  return CreateOrganizationResponseSchema.parse(await jsonBody(response)).token;
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
    await system.stopService('contacts');
    await system.startService('contacts');
    const listed = await fetch(`${gateway}/api/svc/getContacts?token=${token}`);
    const { contacts } = ContactsResponseSchema.parse(await jsonBody(listed));
    expect(contacts.map((c) => c.name)).toEqual(['Durable']);
  });
});
