import { CONTACTS_INTERNAL_PATHS } from '@switchboard/contracts';
import { dbCommandsOn } from '../../../../test/support/test-infra';
import { startContactsSystem, uniquePhone, type ContactsSystem } from '../support/contacts-harness';

jest.setTimeout(30_000);

let system: ContactsSystem;

beforeAll(async () => {
  system = await startContactsSystem('resolvemany', { DB_COMMAND_STATS: 'true' });
});

afterAll(async () => {
  await system?.stop();
});

/** The database commands the service has sent on `collection`, by its metrics. */
const commandsOn = (collection: string) =>
  dbCommandsOn(`${system.contacts.url}/metrics`, collection);

const resolve = (company_id: number, phone: string) =>
  system.internal(CONTACTS_INTERNAL_PATHS.resolve, { company_id, phone });

describe('many new numbers resolved at once (a burst of first sends)', () => {
  test('when 20 new numbers are resolved together, then each gets its own new contact, found again afterwards, without an id write per number', async () => {
    const { company_id } = await system.newOrganization('standard');
    const phones = Array.from({ length: 20 }, () => uniquePhone());
    const countersBefore = await commandsOn('counters');

    const created = await Promise.all(phones.map((phone) => resolve(company_id, phone)));

    for (const [index, answer] of created.entries()) {
      expect(answer.status).toBe(201);
      expect(answer.body.contact).toMatchObject({ phone: phones[index] });
    }
    const ids = created.map((answer) => answer.body.contact.id as number);
    expect(new Set(ids).size).toBe(20);
    // Ids taken in blocks, not one counter write per new contact.
    expect((await commandsOn('counters')) - countersBefore).toBeLessThan(10);

    const again = await Promise.all(phones.map((phone) => resolve(company_id, phone)));
    expect(again.map((answer) => answer.status)).toEqual(phones.map(() => 200));
    expect(again.map((answer) => answer.body.contact.id)).toEqual(ids);
  });

  test('when two organizations resolve the same new number together, then each gets a contact of its own', async () => {
    const phone = uniquePhone();
    const [first, second] = await Promise.all([
      system.newOrganization('standard'),
      system.newOrganization('standard'),
    ]);
    const answers = await Promise.all([
      resolve(first!.company_id, phone),
      resolve(second!.company_id, phone),
      resolve(first!.company_id, phone),
      resolve(second!.company_id, phone),
    ]);
    const [a1, b1, a2, b2] = answers.map((answer) => answer.body.contact.id as number);
    for (const answer of answers) expect(answer.body.contact.phone).toBe(phone);
    // One contact per organization, the same for both of its calls, and not the other's.
    expect(a2).toBe(a1);
    expect(b2).toBe(b1);
    expect(b1).not.toBe(a1);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
  });
});
