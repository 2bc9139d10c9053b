import { QUOTA_MESSAGE_PREFIX } from '@switchboard/contracts';
import { startContactsSystem, uniquePhone, type ContactsSystem } from '../support/contacts-harness';

jest.setTimeout(60_000);

let system: ContactsSystem;

beforeAll(async () => {
  system = await startContactsSystem('quotarecon', {
    QUOTA_RECONCILE_EVERY_MS: '1000',
    QUOTA_RECONCILE_SETTLE_MS: '60000',
  });
});

afterAll(async () => {
  await system?.stop();
});

const counters = () => system.contacts.db.collection<{ _id: number }>('contact_quotas');
const counted = async (company_id: number) =>
  ((await counters().findOne({ _id: company_id })) as { count: number } | null)?.count;

/** What a process killed between taking a place and inserting the contact leaves behind. */
async function leakPlaces(company_id: number, count: number, changed_at: Date) {
  await counters().updateOne({ _id: company_id }, { $set: { count, changed_at } });
}

async function until(probe: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 15_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('when a crash left the contact counter above the contacts stored, then the reconcile job sets it back and creates are allowed again', async () => {
  const { company_id, api } = await system.newOrganization('free');
  for (const name of ['Ana', 'Bruno']) {
    expect((await api.send('POST', 'makeContact', { name, phone: uniquePhone() })).status).toBe(
      201,
    );
  }
  await leakPlaces(company_id, 100, new Date(Date.now() - 60 * 60 * 1000));
  const refused = await api.send('POST', 'makeContact', { name: 'Carla', phone: uniquePhone() });
  expect(refused.status).toBe(429);
  expect(refused.body.message).toMatch(new RegExp(`^${QUOTA_MESSAGE_PREFIX}`));

  await until(async () => (await counted(company_id)) === 2, 'the counter to be corrected');
  const created = await api.send('POST', 'makeContact', { name: 'Carla', phone: uniquePhone() });
  expect(created.status).toBe(201);
  expect(await counted(company_id)).toBe(3);
});

test('when a counter changed within the settle time, then the job leaves it alone (a write may be in progress)', async () => {
  const settled = await system.newOrganization('free');
  const recent = await system.newOrganization('free');
  for (const org of [settled, recent]) {
    await org.api.send('POST', 'makeContact', { name: 'Dora', phone: uniquePhone() });
  }
  await leakPlaces(recent.company_id, 5, new Date());
  await leakPlaces(settled.company_id, 5, new Date(Date.now() - 60 * 60 * 1000));

  // Once the settled one is corrected, the job has run over both.
  await until(async () => (await counted(settled.company_id)) === 1, 'the settled counter');
  expect(await counted(recent.company_id)).toBe(5);
});
