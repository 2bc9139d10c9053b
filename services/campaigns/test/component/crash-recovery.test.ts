// Nothing campaigns holds at messaging stays held after a crash: an automated answer's quota place
// taken by a process that died before publishing, and a campaign start whose recovery died half
// way. The killed process is simulated by writing the state it leaves, or by messaging being
// unreachable at the exact step. Messaging is a contract stub that counts the places held; that
// messaging takes a hold over when a command names it is messaging's own tests'.
import {
  CampaignResponseSchema,
  MESSAGING_INTERNAL_PATHS,
  monthKey,
  type CampaignView,
} from '@switchboard/contracts';
import {
  sleep,
  startCampaignsSystem,
  uniquePhone,
  waitFor,
  type CampaignsSystem,
  type Organization,
} from '../support/campaigns-harness';

jest.setTimeout(90_000);

const LEASE_MS = 1_000;
let system: CampaignsSystem;

beforeAll(async () => {
  system = await startCampaignsSystem('campcrash');
});

afterAll(async () => {
  await system?.stop();
});

type Doc = Record<string, unknown> & { _id: string };

/** The places the organization holds at messaging now. */
const messagesUsed = (org: Organization) => system.messaging.held(org.company_id);

/** One of messaging's internal quota routes, called as another producer would. */
async function quotaCall(org: Organization, path: string, body: Record<string, unknown>) {
  const response = await fetch(`${system.messaging.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      company_id: org.company_id,
      plan: 'free',
      plan_started_at: org.organization.plan_started_at.toISOString(),
      ...body,
    }),
  });
  return { status: response.status };
}
const reserve = (org: Organization, body: Record<string, unknown>) =>
  quotaCall(org, MESSAGING_INTERNAL_PATHS.reserveQuota, body);

const answersTo = (org: Organization, phone: string) => system.answersTo(org, phone);

describe('an automated answer’s quota place', () => {
  test('when campaigns died after holding an answer’s place and before publishing it, then the redelivered message is answered once, on that place', async () => {
    const org = await system.newOrganization('free', 'Answer Crash Co');
    const added = await org.api.post('addAutomatedReply', {
      name: 'Hours',
      kind: 'exact',
      triggers: 'hours',
      message: 'Nine to five',
    });
    expect(added.status).toBe(201);
    const phone = uniquePhone();
    const contact_id = system.contacts.add(org.company_id, { name: 'Ada', phone }).id;
    // A message_received that automation has not answered yet: bots are off when it comes.
    await org.api.post('updateContactBots', { contact_id, enabled: false });
    const event = await system.customerWrites(org, phone, 'hours');
    await sleep(500);
    await org.api.post('updateContactBots', { contact_id, enabled: true });
    expect(await reserve(org, { count: 98 })).toMatchObject({ status: 200 });

    // What a process killed between the place and the publish leaves: the answer claimed for
    // the minute's limit, and its place held at messaging under the answer's key.
    const message_id = event.data.message_id;
    await system.campaigns.db
      .collection<Doc>('automation_states')
      .updateOne(
        { _id: `${org.company_id}:${contact_id}` },
        { $set: { window_start: new Date(), window_count: 1, window_message_ids: [message_id] } },
      );
    const held = await quotaCall(org, MESSAGING_INTERNAL_PATHS.holdQuota, {
      hold_id: `automation:${message_id}`,
    });
    expect(held.status).toBe(200);
    expect(messagesUsed(org)).toBe(99);

    // The broker hands the unacknowledged message over again.
    await system.publishEvent(event);

    expect(await waitFor(() => answersTo(org, phone)[0])).toBe('Nine to five');
    // The command names the place held before the crash, for messaging to take over.
    expect(system.commands.filter((command) => command.contact_id === contact_id)).toEqual([
      expect.objectContaining({
        idempotency_key: `automation:${message_id}`,
        quota_hold: `automation:${message_id}`,
      }),
    ]);
    expect(messagesUsed(org)).toBe(99);
    await sleep(3 * LEASE_MS);
    expect(answersTo(org, phone)).toEqual(['Nine to five']);
    expect(messagesUsed(org)).toBe(99);
  });
});

describe('the recovery of an interrupted campaign start', () => {
  test('when the recovery dies between taking the start back and giving its places back, then a later run gives them back once', async () => {
    const org = await system.newOrganization('free', 'Undo Crash Co');
    const created = await org.api.post('createCampaign', {
      name: 'Interrupted twice',
      type: 'regular',
      message: { type: 'text', text: 'Hello' },
      audience: { type: 'all' },
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    // A start killed three minutes ago holding its campaign of the month and three messages.
    const claimedAt = new Date(Date.now() - 3 * 60_000);
    const attempt = `campaign:${campaign.id}:${claimedAt.getTime()}`;
    const month = monthKey(claimedAt);
    expect(await reserve(org, { count: 3, reservation_id: attempt })).toMatchObject({
      status: 200,
    });
    const campaignsDb = system.campaigns.db;
    await campaignsDb
      .collection<Doc>('campaign_quotas')
      .insertOne({ _id: `${org.company_id}:${month}`, count: 1, reservations: { [attempt]: 1 } });

    // The recovery runs while messaging is unreachable: it dies at its first give-back, after
    // its first write, as a process killed there would.
    await system.messaging.close();
    await campaignsDb
      .collection<Doc>('campaigns')
      .updateOne(
        { _id: String(campaign.id) },
        { $set: { start_step: 'message_quota', start_claimed_at: claimedAt } },
      );
    await waitFor(async () => {
      const stored = await campaignsDb.collection<Doc>('campaigns').findOne({
        _id: String(campaign.id),
      });
      return stored?.start_step !== 'message_quota' ? true : undefined;
    });
    await sleep(1_000);
    await system.messaging.reopen();

    const campaignsUsed = async () =>
      (
        await campaignsDb
          .collection<Doc>('campaign_quotas')
          .findOne({ _id: `${org.company_id}:${month}` })
      )?.count;
    await waitFor(
      async () => (messagesUsed(org) === 0 && (await campaignsUsed()) === 0 ? true : undefined),
      30_000,
      'the messages and the campaign of the month given back',
    );
    const view: CampaignView = CampaignResponseSchema.parse(
      (await org.api.get('getCampaign', { id: campaign.id })).body,
    ).campaign;
    expect(view.status).toBe('draft');
    // The start is reset after both give-backs, in a write of its own.
    const reset = await waitFor(
      async () => {
        const stored = await campaignsDb
          .collection<Doc>('campaigns')
          .findOne({ _id: String(campaign.id) });
        return stored?.start_step === 'none' ? stored : undefined;
      },
      10_000,
      'the start reset',
    );
    expect(reset).toMatchObject({ start_step: 'none', start_claimed_at: null });
  });
});
