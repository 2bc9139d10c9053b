import { CampaignResponseSchema, UsageResponseSchema } from '@switchboard/contracts';
import { startE2eSystem, until, type ApiClient, type E2eSystem } from '../support/e2e-system';

jest.setTimeout(120_000);

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('e2eusage', { SIM_STATUS_DELAYS_MS: '100,100,100' });
});

afterAll(async () => {
  await e2e?.stop();
});

async function usageOf(client: ApiClient) {
  const answer = await client.get('getUsage');
  expect(answer.status).toBe(200);
  return UsageResponseSchema.parse(answer.body);
}

describe('plan usage: each quota with what is used of it this month', () => {
  test('when a message is sent and a campaign runs, then their counts move for that organization only', async () => {
    const org = await e2e.createOrganization('Usage Co', 'free');
    const other = await e2e.createOrganization('Other Co', 'standard');
    const client = e2e.api(org.token);
    const otherClient = e2e.api(other.token);

    const before = await usageOf(client);
    expect(before).toMatchObject({
      plan: 'free',
      usage: {
        messages: { used: 0, limit: 100 },
        campaigns: { used: 0, limit: 2 },
        contacts: { used: 0, limit: 100 },
        agents: { used: 0, limit: 1 },
      },
      unavailable: [],
    });
    expect(before.month).toBe(new Date().toISOString().slice(0, 7));

    const sent = await client.post('sendMessageToPhoneNumber', {
      phone: '393471240001',
      message: 'Your order shipped',
    });
    expect(sent.status).toBe(200);
    const afterSend = await usageOf(client);
    expect(afterSend.usage.messages.used).toBe(1);
    // The send stored its recipient as a contact.
    expect(afterSend.usage.contacts.used).toBe(1);
    expect(afterSend.usage.campaigns.used).toBe(0);

    const created = await client.post('createCampaign', {
      name: 'Usage news',
      type: 'regular',
      message: { type: 'text', text: 'News' },
      audience: { type: 'all' },
      send_now: true,
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    await until(async () => {
      const answer = await client.get('getCampaign', { id: campaign.id });
      return answer.body.campaign?.status === 'completed' ? true : undefined;
    }, 'the campaign completed');
    const afterCampaign = await usageOf(client);
    expect(afterCampaign.usage.campaigns.used).toBe(1);
    expect(afterCampaign.usage.messages.used).toBe(2);

    // The other organization's counts did not move; its plan has other limits.
    expect(await usageOf(otherClient)).toMatchObject({
      plan: 'standard',
      usage: {
        messages: { used: 0, limit: null },
        campaigns: { used: 0, limit: 100 },
        contacts: { used: 0, limit: null },
        agents: { used: 0, limit: 10 },
      },
      unavailable: [],
    });
  });

  test('when the campaigns service is down, then the other quotas are answered and campaigns is named unavailable', async () => {
    const org = await e2e.createOrganization('Partial Co', 'premium');
    const client = e2e.api(org.token);
    expect(
      (await client.post('sendMessageToPhoneNumber', { phone: '393471240002', message: 'Hi' }))
        .status,
    ).toBe(200);
    await e2e.system.stopService('campaigns');
    const usage = await usageOf(client);
    expect(usage.unavailable).toEqual(['campaigns']);
    expect(usage.usage.campaigns).toEqual({ used: null, limit: 500 });
    expect(usage.usage.messages).toEqual({ used: 1, limit: null });
    expect(usage.usage.contacts).toEqual({ used: 1, limit: null });
  });
});
