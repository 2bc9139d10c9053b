// Nothing campaigns holds at messaging stays held after a crash: an automated answer's quota place
// taken by a process that died before publishing, and a campaign start whose recovery died half
// way. The killed process is simulated by writing the state it leaves, or by messaging being
// unreachable at the exact step.
import {
  CampaignResponseSchema,
  EXCHANGES,
  MESSAGING_INTERNAL_PATHS,
  monthKey,
  type CampaignView,
} from '@switchboard/contracts';
import {
  sleep,
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/system-harness';

jest.setTimeout(90_000);

const LEASE_MS = 1_000;
let system: MessagingSystem;

beforeAll(async () => {
  system = await startMessagingSystem('campcrash', {
    messagingEnv: { SEND_LEASE_MS: String(LEASE_MS), SEND_RECOVERY_INTERVAL_MS: '200' },
    campaignsEnv: {},
  });
});

afterAll(async () => {
  await system?.stop();
});

type Doc = Record<string, unknown> & { _id: string };

async function messagesUsed(org: Organization, month = monthKey()): Promise<number> {
  const quota = await system.stack.messaging.db
    .collection<Doc>('message_quotas')
    .findOne({ _id: `${org.company_id}:${month}` });
  return (quota?.used as number | undefined) ?? 0;
}

async function reserve(org: Organization, body: Record<string, unknown>) {
  return system.messagingInternal(MESSAGING_INTERNAL_PATHS.reserveQuota, {
    company_id: org.company_id,
    plan: 'free',
    plan_started_at: org.created.organization.plan_started_at,
    ...body,
  });
}

const answersTo = async (phone: string): Promise<string[]> =>
  (
    (await system.sim('GET', `/sent?to=${phone}`)).sent as {
      request: { text?: { body: string } };
    }[]
  ).map((record) => record.request.text?.body ?? '');

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
    await org.api.post('makeContact', { name: 'Ada', phone });
    const contact_id = (
      (await org.api.get('getSingleContact', { phone })).body.contact as { id: number }
    ).id;
    // A real message_received that automation has not answered yet: bots are off when it comes.
    await org.api.post('updateContactBots', { contact_id, enabled: false });
    const event = await system.customerWrites(org, { from: phone, text: 'hours' });
    await sleep(500);
    await org.api.post('updateContactBots', { contact_id, enabled: true });
    expect(await reserve(org, { count: 98 })).toMatchObject({ status: 200 });

    // What a process killed between the place and the publish leaves: the answer claimed for
    // the minute's limit, and its place held at messaging under the answer's key.
    const message_id = event.data.message_id;
    await system
      .campaigns!.db.collection<Doc>('automation_states')
      .updateOne(
        { _id: `${org.company_id}:${contact_id}` },
        { $set: { window_start: new Date(), window_count: 1, window_message_ids: [message_id] } },
      );
    const held = await system.messagingInternal(MESSAGING_INTERNAL_PATHS.holdQuota, {
      company_id: org.company_id,
      plan: 'free',
      plan_started_at: org.created.organization.plan_started_at,
      hold_id: `automation:${message_id}`,
    });
    expect(held.status).toBe(200);
    expect(await messagesUsed(org)).toBe(99);

    // The broker hands the unacknowledged message over again.
    await system.publish(EXCHANGES.events, 'message_received', event, event.id);

    expect(await waitFor(async () => (await answersTo(phone))[0])).toBe('Nine to five');
    expect(await messagesUsed(org)).toBe(99);
    // Two leases on, the recovery job has had its chance: it gives nothing back.
    await sleep(3 * LEASE_MS);
    expect(await answersTo(phone)).toEqual(['Nine to five']);
    expect(await messagesUsed(org)).toBe(99);
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
    const campaignsDb = system.campaigns!.db;
    await campaignsDb
      .collection<Doc>('campaign_quotas')
      .insertOne({ _id: `${org.company_id}:${month}`, count: 1, starts: { [attempt]: true } });

    // The recovery runs while messaging is unreachable: it dies at its first give-back, after
    // its first write, as a process killed there would.
    await system.stack.messaging.stop();
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
    await system.stack.restartMessaging();

    const campaignsUsed = async () =>
      (
        await campaignsDb
          .collection<Doc>('campaign_quotas')
          .findOne({ _id: `${org.company_id}:${month}` })
      )?.count;
    await waitFor(
      async () =>
        (await messagesUsed(org, month)) === 0 && (await campaignsUsed()) === 0 ? true : undefined,
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
