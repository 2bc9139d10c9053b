// kill -9 messaging and then campaigns in the middle of a 2,000-recipient
// campaign; after each restart the campaign goes on, every recipient gets exactly one message
// (the simulator's record proves it) and the campaign completes. Every service its own process.
import mongoose from 'mongoose';
import { CampaignResponseSchema, type CampaignView } from '@switchboard/contracts';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { MONGODB_URL, jsonBody, storedContacts } from '../support/test-infra';

jest.setTimeout(30 * 60_000);

const RECIPIENTS = 2_000;
let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('e2ecampcrash', {
    // The provider's pace is not what is tested here: let the simulator take what comes.
    SIM_THROUGHPUT_PER_SECOND: '100000',
    SEND_RATE_PER_SECOND: '100000',
    // The `sent` status comes back fast (see below): it is how a send interrupted after the
    // provider accepted it is recognized, so that no one gets the message twice.
    SIM_STATUS_DELAYS_MS: '100',
    SCHEDULER_INTERVAL_MS: '1000',
  });
});

afterAll(async () => {
  await e2e?.stop();
});

/** The audience, written straight into contacts' database (see `storedContacts`). */
async function seedContacts(companyId: number, count: number): Promise<string[]> {
  const phones = Array.from({ length: count }, (_, i) => `39350${String(i).padStart(7, '0')}`);
  const connection = await mongoose.createConnection(MONGODB_URL).asPromise();
  try {
    await connection
      .useDb(`${e2e.dbPrefix}contacts`)
      .collection('contacts')
      .insertMany(storedContacts(companyId, phones, 5_000_000));
  } finally {
    await connection.close();
  }
  return phones;
}

async function sentByRecipient(phoneNumberId: string): Promise<Map<string, number>> {
  const answer = await jsonBody(
    await fetch(`${e2e.simulator}/sim/sent?phone_number_id=${phoneNumberId}`),
  );
  const counts = new Map<string, number>();
  for (const record of answer.sent as { wa_id: string }[]) {
    counts.set(record.wa_id, (counts.get(record.wa_id) ?? 0) + 1);
  }
  return counts;
}

test('when messaging and then campaigns are killed with SIGKILL mid-campaign, then after their restarts every recipient gets exactly one message and the campaign completes', async () => {
  const org = await e2e.createOrganization('Crash Co', 'premium');
  const phoneNumberId = org.channel.phone_number_id;
  const phones = await seedContacts(org.organization.company_id, RECIPIENTS);
  // Only the `sent` status: delivered and read would only add writes to a slow local database.
  await fetch(`${e2e.simulator}/sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone_number_id: phoneNumberId, statuses: ['sent'] }),
  });
  const client = e2e.api(org.token);

  const created = await client.post('createCampaign', {
    name: 'Survives crashes',
    type: 'regular',
    message: { type: 'text', text: 'Big news, {{1}}' },
    variables: ['contact.phone'],
    audience: { type: 'all' },
    send_now: true,
  });
  expect(created.status).toBe(201);
  const { campaign } = CampaignResponseSchema.parse(created.body);
  expect(campaign.total_contacts).toBe(RECIPIENTS);

  const sentAtLeast = (count: number) =>
    until(
      async () => {
        const counts = await sentByRecipient(phoneNumberId);
        return counts.size >= count ? counts.size : undefined;
      },
      `${count} recipients reached`,
      10 * 60_000,
    );

  await sentAtLeast(300);
  await e2e.system.killService('messaging');
  await e2e.system.startService('messaging');

  await sentAtLeast(900);
  await e2e.system.killService('campaigns');
  await e2e.system.startService('campaigns');

  const done = await until(
    async () => {
      const answer = await client.get('getCampaign', { id: campaign.id });
      const current = CampaignResponseSchema.parse(answer.body).campaign as CampaignView;
      return current.status === 'completed' ? current : undefined;
    },
    'the campaign to complete',
    15 * 60_000,
  );

  const counts = await sentByRecipient(phoneNumberId);
  const missing = phones.filter((phone) => !counts.has(phone));
  const twice = [...counts].filter(([, n]) => n > 1);
  expect({ missing: missing.length, twice: twice.length, reached: counts.size }).toEqual({
    missing: 0,
    twice: 0,
    reached: RECIPIENTS,
  });
  expect(done).toMatchObject({ total_contacts: RECIPIENTS, sent: RECIPIENTS, failed: 0 });
});
