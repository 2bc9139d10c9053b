import {
  CampaignResponseSchema,
  UsageResponseSchema,
  type UsageResponse,
} from '@switchboard/contracts';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/system-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;

beforeAll(async () => {
  // Campaigns too: getUsage reads its counter beside messaging's and contacts'.
  system = await startMessagingSystem('msgusage', { campaignsEnv: {} });
});

afterAll(async () => {
  await system?.stop();
});

async function usageOf(org: Organization): Promise<UsageResponse> {
  const answer = await org.api.get('getUsage');
  expect(answer.status).toBe(200);
  return UsageResponseSchema.parse(answer.body);
}

describe('getUsage: the counters each quota is enforced with, read through the gateway', () => {
  test('when a message is sent and a campaign runs, then their counts move for that organization only', async () => {
    const org = await system.newOrganization('free', 'Usage Co');
    const other = await system.newOrganization('standard', 'Other Co');
    expect(await usageOf(org)).toMatchObject({
      plan: 'free',
      month: new Date().toISOString().slice(0, 7),
      usage: {
        messages: { used: 0, limit: 100 },
        campaigns: { used: 0, limit: 2 },
        contacts: { used: 0, limit: 100 },
        agents: { used: 0, limit: 1 },
      },
      unavailable: [],
    });

    const sent = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Your order shipped',
    });
    expect(sent.status).toBe(200);
    const afterSend = await usageOf(org);
    expect(afterSend.usage.messages.used).toBe(1);
    // The send stored its recipient as a contact.
    expect(afterSend.usage.contacts.used).toBe(1);
    expect(afterSend.usage.campaigns.used).toBe(0);

    const created = await org.api.post('createCampaign', {
      name: 'Usage news',
      type: 'regular',
      message: { type: 'text', text: 'News' },
      audience: { type: 'all' },
      send_now: true,
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    await waitFor(
      async () => {
        const answer = await org.api.get('getCampaign', { id: campaign.id });
        return answer.body.campaign?.status === 'completed' ? true : undefined;
      },
      30_000,
      'the campaign completed',
    );
    const afterCampaign = await usageOf(org);
    expect(afterCampaign.usage.campaigns.used).toBe(1);
    // Its one recipient's message.
    expect(afterCampaign.usage.messages.used).toBe(2);

    // The other organization's counts did not move; its plan has other limits.
    expect(await usageOf(other)).toMatchObject({
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

  test('when campaigns is stopped, then the other quotas are answered and campaigns is named unavailable', async () => {
    const org = await system.newOrganization('premium', 'Partial Co');
    expect(
      (await org.api.post('sendMessageToPhoneNumber', { phone: uniquePhone(), message: 'Hi' }))
        .status,
    ).toBe(200);
    await system.campaigns!.stop();
    const usage = await usageOf(org);
    expect(usage.unavailable).toEqual(['campaigns']);
    expect(usage.usage.campaigns).toEqual({ used: null, limit: 500 });
    expect(usage.usage.messages).toEqual({ used: 1, limit: null });
    expect(usage.usage.contacts).toEqual({ used: 1, limit: null });
  });
});
