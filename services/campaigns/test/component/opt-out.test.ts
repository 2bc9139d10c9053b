import { CampaignResponseSchema, type CampaignView } from '@switchboard/contracts';
import {
  sleep,
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/system-harness';

jest.setTimeout(90_000);

const STOP_ANSWER = 'Unsubscribed. Reply START to come back.';
const START_ANSWER = 'Welcome back.';

let system: MessagingSystem;
let org: Organization;

beforeAll(async () => {
  system = await startMessagingSystem('optout', {
    campaignsEnv: {
      OPT_OUT_KEYWORDS: 'STOP, UNSUBSCRIBE, PARAR, BAJA, ARRÊT, STOPP',
      OPT_IN_KEYWORDS: 'START',
      OPT_OUT_CONFIRMATION: STOP_ANSWER,
      OPT_IN_CONFIRMATION: START_ANSWER,
    },
    // Sends ask contacts every time, so that a STOP a moment ago is seen by the next send.
    messagingEnv: { CONTACT_CACHE_TTL_MS: '0' },
    simulator: { templateReviewDelayMs: 100 },
  });
  org = await system.newOrganization('standard', 'Opt-out Co');
});

afterAll(async () => {
  await system?.stop();
});

interface SentRecord {
  request: { to: string; type: string; text?: { body: string } };
}
const answersTo = async (phone: string): Promise<string[]> =>
  ((await system.sim('GET', `/sent?to=${phone}`)).sent as SentRecord[]).map(
    (record) => record.request.text?.body ?? `[${record.request.type}]`,
  );
const subscriptionOf = async (phone: string): Promise<string> =>
  (await org.api.get('getSingleContact', { phone })).body.contact.subscription;
const answered = (phone: string, text: string) =>
  waitFor(
    async () => ((await answersTo(phone)).includes(text) ? true : undefined),
    15_000,
    `"${text}" to ${phone}`,
  );

/** A contact that never wrote, unsubscribed by the organization. */
async function unsubscribedContact(): Promise<{ phone: string; id: number }> {
  const phone = uniquePhone();
  const made = await org.api.post('makeContact', { name: 'Quiet', phone });
  const id = made.body.contact.id as number;
  const updated = await org.api.post('updateContact', { id, subscription: 'unsubscribed' });
  expect(updated.status).toBe(200);
  return { phone, id };
}

describe('opt-out words', () => {
  test.each(['STOP', 'stop!', 'Baja', 'arrêt', 'ARRET', 'stopp', 'Unsubscribe'])(
    'when a contact writes %s, then the contact is unsubscribed and answered the confirmation',
    async (word) => {
      const phone = uniquePhone();
      await system.customerWrites(org, { from: phone, text: word });
      await answered(phone, STOP_ANSWER);
      expect(await subscriptionOf(phone)).toBe('unsubscribed');
      expect(await answersTo(phone)).toEqual([STOP_ANSWER]);
    },
  );

  test('when a sentence only contains stop, then nothing changes', async () => {
    const phone = uniquePhone();
    const event = await system.customerWrites(org, { from: phone, text: 'please do not stop' });
    await sleep(800);
    expect(await subscriptionOf(phone)).toBe('subscribed');
    expect(await answersTo(phone)).toEqual([]);
    expect(event.data.message).toBe('please do not stop');
  });

  test('when an unsubscribed contact writes START, then it is subscribed again with its own confirmation', async () => {
    const phone = uniquePhone();
    await system.customerWrites(org, { from: phone, text: 'STOP' });
    await answered(phone, STOP_ANSWER);
    await system.customerWrites(org, { from: phone, text: 'start' });
    await answered(phone, START_ANSWER);
    expect(await subscriptionOf(phone)).toBe('subscribed');
  });

  test('when bots are off for the contact, then STOP still unsubscribes and is confirmed', async () => {
    const phone = uniquePhone();
    const first = await system.customerWrites(org, { from: phone, text: 'hello' });
    const off = await org.api.post('updateContactBots', {
      contact_id: first.data.contact_id,
      enabled: false,
    });
    expect(off.status).toBe(200);
    await system.customerWrites(org, { from: phone, text: 'STOP' });
    await answered(phone, STOP_ANSWER);
    expect(await subscriptionOf(phone)).toBe('unsubscribed');
  });
});

describe('sends to unsubscribed contacts', () => {
  test('when a direct send goes to an unsubscribed contact who has not written in 24 hours, then it is refused with a clear error and nothing is sent', async () => {
    const { phone, id } = await unsubscribedContact();
    const refused = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Sale!' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ status: 'error', code: 'contact_unsubscribed' });
    expect(refused.body.message).toMatch(/unsubscribed/);
    const media = await org.api.post('sendmedia', {
      phone,
      type: 'image',
      url: 'https://example.com/a.jpg',
    });
    expect(media.status).toBe(422);
    expect(await answersTo(phone)).toEqual([]);
    const messages = await org.api.get('getMessages', { contact_id: id });
    expect(messages.body.messages).toEqual([]);
  });

  test('when an unsubscribed contact wrote within 24 hours, then a direct reply is sent', async () => {
    const phone = uniquePhone();
    await system.customerWrites(org, { from: phone, text: 'STOP' });
    await answered(phone, STOP_ANSWER);
    await system.customerWrites(org, { from: phone, text: 'one more question' });
    const reply = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Sure' });
    expect(reply.status).toBe(200);
    await answered(phone, 'Sure');
  });

  test('when a marketing template goes to an unsubscribed contact, then it is refused even within 24 hours', async () => {
    const name = `promo_${Date.now()}`;
    const created = await org.api.post('createTemplate', {
      name,
      language: 'en_US',
      category: 'MARKETING',
      components: [{ type: 'BODY', text: 'Big sale this weekend' }],
    });
    expect(created.status).toBe(201);
    await waitFor(async () => {
      const listed = await org.api.get('getTemplates', { refresh: 1 });
      const template = (listed.body.templates as { name: string; status: string }[]).find(
        (item) => item.name === name,
      );
      return template?.status === 'APPROVED' ? true : undefined;
    }, 15_000);
    const phone = uniquePhone();
    await system.customerWrites(org, { from: phone, text: 'STOP' });
    await answered(phone, STOP_ANSWER);
    const refused = await org.api.post('sendtemplatemessage', {
      phone,
      template_name: name,
      template_language: 'en_US',
      components: [],
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'contact_unsubscribed' });
    expect(refused.body.message).toMatch(/marketing/);
    expect(await answersTo(phone)).toEqual([STOP_ANSWER]);
  });

  test('when a campaign goes to an audience with a contact who wrote STOP, then that contact is skipped', async () => {
    const stopped = uniquePhone();
    await system.customerWrites(org, { from: stopped, text: 'STOP' });
    await answered(stopped, STOP_ANSWER);
    const listening = uniquePhone();
    const made = await org.api.post('makeContact', { name: 'Listener', phone: listening });
    const stoppedId = (await org.api.get('getSingleContact', { phone: stopped })).body.contact.id;
    const created = await org.api.post('createCampaign', {
      name: `Weekend ${Date.now()}`,
      type: 'regular',
      message: { type: 'text', text: 'Weekend sale' },
      audience: { type: 'contacts', contact_ids: [stoppedId, made.body.contact.id] },
      send_now: true,
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    expect(campaign.total_contacts).toBe(1);
    await answered(listening, 'Weekend sale');
    const done = await waitFor(async () => {
      const answer = await org.api.get('getCampaign', { id: campaign.id });
      const current = answer.body.campaign as CampaignView;
      return current.status === 'completed' ? current : undefined;
    }, 20_000);
    expect(done.sent).toBe(1);
    expect(await answersTo(stopped)).toEqual([STOP_ANSWER]);

    const api = await org.api.post('createCampaign', {
      name: `Api ${Date.now()}`,
      type: 'api',
      message: { type: 'text', text: 'Just for you' },
    });
    const apiCampaign = CampaignResponseSchema.parse(api.body).campaign;
    const skipped = await org.api.post('sendcampaigns', {
      phone: stopped,
      campaing_id: apiCampaign.id,
    });
    expect(skipped.status).toBe(422);
    expect(skipped.body).toMatchObject({ code: 'contact_unsubscribed' });
    expect(await answersTo(stopped)).toEqual([STOP_ANSWER]);
  });
});
