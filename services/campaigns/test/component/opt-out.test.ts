import { CampaignResponseSchema, type CampaignView } from '@switchboard/contracts';
import {
  sleep,
  startCampaignsSystem,
  uniquePhone,
  waitFor,
  type CampaignsSystem,
  type Organization,
} from '../support/campaigns-harness';

jest.setTimeout(90_000);

const STOP_ANSWER = 'Unsubscribed. Reply START to come back.';
const START_ANSWER = 'Welcome back.';

let system: CampaignsSystem;
let org: Organization;

beforeAll(async () => {
  system = await startCampaignsSystem('optout', {
    campaignsEnv: {
      OPT_OUT_KEYWORDS: 'STOP, UNSUBSCRIBE, PARAR, BAJA, ARRÊT, STOPP',
      OPT_IN_KEYWORDS: 'START',
      OPT_OUT_CONFIRMATION: STOP_ANSWER,
      OPT_IN_CONFIRMATION: START_ANSWER,
    },
  });
  org = await system.newOrganization('standard', 'Opt-out Co');
});

afterAll(async () => {
  await system?.stop();
});

/** What campaigns handed messaging to send to this phone, as texts. */
const answersTo = (phone: string) => system.answersTo(org, phone);
/** The contact's subscription as contacts holds it (changed only by campaigns' calls). */
const subscriptionOf = (phone: string) =>
  system.contacts.contacts.find((c) => c.company_id === org.company_id && c.phone === phone)
    ?.subscription;
const answered = (phone: string, text: string) =>
  waitFor(
    () => (answersTo(phone).includes(text) ? true : undefined),
    15_000,
    `"${text}" to ${phone}`,
  );

describe('opt-out words', () => {
  test.each(['STOP', 'stop!', 'Baja', 'arrêt', 'ARRET', 'stopp', 'Unsubscribe'])(
    'when a contact writes %s, then the contact is unsubscribed and answered the confirmation',
    async (word) => {
      const phone = uniquePhone();
      await system.customerWrites(org, phone, word);
      await answered(phone, STOP_ANSWER);
      expect(subscriptionOf(phone)).toBe('unsubscribed');
      expect(answersTo(phone)).toEqual([STOP_ANSWER]);
    },
  );

  test('when a sentence only contains stop, then nothing changes', async () => {
    const phone = uniquePhone();
    const event = await system.customerWrites(org, phone, 'please do not stop');
    await sleep(800);
    expect(subscriptionOf(phone)).toBe('subscribed');
    expect(answersTo(phone)).toEqual([]);
    expect(event.data.message).toBe('please do not stop');
  });

  test('when an unsubscribed contact writes START, then it is subscribed again with its own confirmation', async () => {
    const phone = uniquePhone();
    await system.customerWrites(org, phone, 'STOP');
    await answered(phone, STOP_ANSWER);
    await system.customerWrites(org, phone, 'start');
    await answered(phone, START_ANSWER);
    expect(subscriptionOf(phone)).toBe('subscribed');
  });

  test('when bots are off for the contact, then STOP still unsubscribes and is confirmed', async () => {
    const phone = uniquePhone();
    const first = await system.customerWrites(org, phone, 'hello');
    const off = await org.api.post('updateContactBots', {
      contact_id: first.data.contact_id,
      enabled: false,
    });
    expect(off.status).toBe(200);
    await system.customerWrites(org, phone, 'STOP');
    await answered(phone, STOP_ANSWER);
    expect(subscriptionOf(phone)).toBe('unsubscribed');
  });
});

// What messaging does with a direct send to an unsubscribed contact is tested across the
// services in test/e2e/automated-replies.test.ts.
describe('campaigns to unsubscribed contacts', () => {
  test('when a campaign goes to an audience with a contact who wrote STOP, then that contact is skipped', async () => {
    const stopped = uniquePhone();
    await system.customerWrites(org, stopped, 'STOP');
    await answered(stopped, STOP_ANSWER);
    const listening = uniquePhone();
    const listener = system.contacts.add(org.company_id, { name: 'Listener', phone: listening });
    const stoppedId = system.contacts.contacts.find((c) => c.phone === stopped)!.id;
    const created = await org.api.post('createCampaign', {
      name: `Weekend ${Date.now()}`,
      type: 'regular',
      message: { type: 'text', text: 'Weekend sale' },
      audience: { type: 'contacts', contact_ids: [stoppedId, listener.id] },
      send_now: true,
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    expect(campaign.total_contacts).toBe(1);
    await answered(listening, 'Weekend sale');
    const done = await waitFor(async () => {
      const answer = await org.api.get('getCampaign', { id: campaign.id });
      const current = answer.body.campaign as CampaignView;
      return current.status === 'completed' && current.sent === 1 ? current : undefined;
    }, 20_000);
    expect(done.sent).toBe(1);
    expect(answersTo(stopped)).toEqual([STOP_ANSWER]);

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
    expect(answersTo(stopped)).toEqual([STOP_ANSWER]);
  });
});
