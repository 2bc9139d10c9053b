import {
  AutomatedRepliesResponseSchema,
  AutomatedReplyResponseSchema,
  ContactBotsResponseSchema,
  type AutomatedReply,
} from '@switchboard/contracts';
import type { Responder } from '../../src/domain/automation/responder';
import {
  sleep,
  startCampaignsSystem,
  uniquePhone,
  waitFor,
  sentOnce,
  textsOf,
  type CampaignsSystem,
  type Organization,
  type WriteOptions,
} from '../support/campaigns-harness';

jest.setTimeout(90_000);

const MAX_PER_MINUTE = 3;

/** Organizations whose flow and AI bot steps answer (stand-ins for the flow and AI bot responders). */
const withFlow = new Set<number>();
const withAiBot = new Set<number>();
const fakeFlow: Responder = async (turn) =>
  withFlow.has(turn.organization.company_id) && /flow/i.test(turn.message.text)
    ? { source: 'flow:1', content: { type: 'text', message: 'from the flow' } }
    : null;
const fakeAiBot: Responder = async (turn) =>
  withAiBot.has(turn.organization.company_id)
    ? { source: 'ai_bot', content: { type: 'text', message: 'from the AI bot' } }
    : null;

let system: CampaignsSystem;

beforeAll(async () => {
  system = await startCampaignsSystem('autoreplies', {
    campaignsEnv: { AUTOMATION_MAX_ANSWERS_PER_MINUTE: String(MAX_PER_MINUTE) },
    campaignsOptions: { responders: { flow: fakeFlow, aiBot: fakeAiBot } },
  });
});

afterAll(async () => {
  await system?.stop();
});

/** What messaging would send this phone for the commands campaigns handed it, in order. */
const answersTo = async (phone: string): Promise<string[]> => {
  const contact = system.contacts.contacts.find((known) => known.phone === phone);
  return contact
    ? textsOf(sentOnce(system.commands), system.contacts.contacts, contact.company_id, phone)
    : [];
};

/** How many inbound messages automation settled with this outcome (its Prometheus counter). */
async function outcomes(outcome: string): Promise<number> {
  const text = await (await fetch(`${system.campaigns.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (row) =>
        row.startsWith('switchboard_automated_answers_total{') &&
        row.includes(`outcome="${outcome}"`),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** Waits until automation has settled `count` more messages with `outcome` than `before`. */
const settled = (outcome: string, before: number, count = 1) =>
  waitFor(
    async () => ((await outcomes(outcome)) >= before + count ? true : undefined),
    10_000,
    outcome,
  );

/** An end user writes to the organization; resolves with its `message_received`. */
const write = (org: Organization, from: string, text: string, options: WriteOptions = {}) =>
  system.customerWrites(org, from, text, options);

/** Writes `text` and waits for automation's verdict on it. */
async function writeAndSettle(org: Organization, from: string, text: string, outcome: string) {
  const before = await outcomes(outcome);
  const event = await write(org, from, text);
  await settled(outcome, before);
  return event;
}

async function addReply(org: Organization, body: Record<string, unknown>): Promise<AutomatedReply> {
  const added = await org.api.post('addAutomatedReply', body);
  expect(added.status).toBe(201);
  return AutomatedReplyResponseSchema.parse(added.body).reply;
}

const call = (org: Organization, method: string, operation: string, body: object) =>
  org.api.send(method, operation, body);

/** A contact of the organization at contacts. */
const contactOf = (org: Organization, name: string, phone: string, custom = {}) =>
  system.contacts.add(org.company_id, { name, phone, custom }).id;

describe('automated replies over the API', () => {
  test('when a reply is added, listed, updated with PUT or POST and deleted, then each answer shows it as stored', async () => {
    const org = await system.newOrganization('standard', 'Crud Co');
    const first = await addReply(org, {
      name: 'Greeting',
      kind: 'exact',
      triggers: 'hello, hi ,hello',
      message: 'Hi {{name}}!',
      buttons: [{ id: 'menu', title: 'Menu' }],
    });
    expect(first).toMatchObject({
      name: 'Greeting',
      kind: 'exact',
      triggers: ['hello', 'hi'],
      message: 'Hi {{name}}!',
      header: null,
      buttons: [{ id: 'menu', title: 'Menu' }],
      next_reply_id: null,
      active: true,
      used: 0,
    });
    const second = await addReply(org, {
      name: 'Welcome',
      kind: 'welcome',
      message: 'Welcome',
      next_reply_id: first.id,
    });
    expect(second.triggers).toEqual([]);

    const page = AutomatedRepliesResponseSchema.parse(
      (await org.api.get('getAutomatedReplies', { per_page: 1, page: 2 })).body,
    );
    expect(page.meta).toEqual({ total: 2, page: 2, per_page: 1, next_page: null });
    expect(page.replies.map((reply) => reply.id)).toEqual([second.id]);
    const welcomes = AutomatedRepliesResponseSchema.parse(
      (await org.api.get('getAutomatedReplies', { kind: 'welcome' })).body,
    );
    expect(welcomes.replies.map((reply) => reply.id)).toEqual([second.id]);

    const put = await call(org, 'PUT', 'updateAutomatedReply', {
      id: first.id,
      kind: 'contains',
      triggers: ['price'],
      active: false,
      header: 'Prices',
    });
    expect(put.status).toBe(200);
    expect(AutomatedReplyResponseSchema.parse(put.body).reply).toMatchObject({
      kind: 'contains',
      triggers: ['price'],
      active: false,
      message: 'Hi {{name}}!',
      header: 'Prices',
    });
    const posted = await org.api.post('updateAutomatedReply', {
      id: first.id,
      name: 'Prices',
      header: null,
    });
    expect(AutomatedReplyResponseSchema.parse(posted.body).reply).toMatchObject({
      name: 'Prices',
      header: null,
      kind: 'contains',
    });

    const deleted = await call(org, 'DELETE', 'deleteAutomatedReply', { id: first.id });
    expect(deleted.status).toBe(200);
    expect(AutomatedReplyResponseSchema.parse(deleted.body).reply.id).toBe(first.id);
    const list = AutomatedRepliesResponseSchema.parse(
      (await org.api.get('getAutomatedReplies')).body,
    );
    // The welcome reply chained to the deleted one and no longer does.
    expect(list.replies).toEqual([expect.objectContaining({ id: second.id, next_reply_id: null })]);
    expect((await org.api.post('deleteAutomatedReply', { id: first.id })).status).toBe(404);
  });

  test.each([
    ['no name', { kind: 'exact', triggers: 'a', message: 'x' }, 'name'],
    ['an unknown kind', { name: 'n', kind: 'fuzzy', triggers: 'a', message: 'x' }, 'kind'],
    ['an exact reply without triggers', { name: 'n', kind: 'exact', message: 'x' }, 'triggers'],
    [
      'a contains reply with an empty list',
      { name: 'n', kind: 'contains', triggers: [], message: 'x' },
      'triggers',
    ],
    [
      'a welcome reply with triggers',
      { name: 'n', kind: 'welcome', triggers: 'hi', message: 'x' },
      'triggers',
    ],
    [
      'a trigger of punctuation only',
      { name: 'n', kind: 'exact', triggers: '?!', message: 'x' },
      'triggers',
    ],
    ['no message', { name: 'n', kind: 'exact', triggers: 'a' }, 'message'],
    [
      'four buttons',
      { name: 'n', kind: 'exact', triggers: 'a', message: 'x', buttons: 'a,b,c,d' },
      'buttons',
    ],
    [
      'an unknown next reply',
      { name: 'n', kind: 'exact', triggers: 'a', message: 'x', next_reply_id: 999999 },
      'next_reply_id',
    ],
    [
      'an operator as a name',
      { name: { $gt: '' }, kind: 'exact', triggers: 'a', message: 'x' },
      'name',
    ],
  ])(
    'when a reply is added with %s, then 422 names the field and nothing is stored',
    async (_case, body, field) => {
      const org = await system.newOrganization('standard', 'Bad Input Co');
      const answer = await org.api.post('addAutomatedReply', body);
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ status: 'error', code: 'validation_failed' });
      expect(String(answer.body.message)).toContain(field);
      const list = AutomatedRepliesResponseSchema.parse(
        (await org.api.get('getAutomatedReplies')).body,
      );
      expect(list.replies).toEqual([]);
    },
  );

  test('when an operation is called with a method it does not take, or bad ids, then it answers 405 or 422', async () => {
    const org = await system.newOrganization('standard', 'Methods Co');
    expect((await org.api.get('addAutomatedReply')).status).toBe(405);
    expect((await call(org, 'PUT', 'deleteAutomatedReply', { id: 1 })).status).toBe(405);
    expect((await org.api.post('getAutomatedReplies', {})).status).toBe(405);
    expect((await org.api.post('updateAutomatedReply', { id: 'x' })).status).toBe(422);
    expect((await org.api.get('getAutomatedReplies', { per_page: 5000 })).status).toBe(422);
    expect((await org.api.post('updateContactBots', { contact_id: 1 })).status).toBe(422);
  });

  test('when another organization names a reply or a contact, then every operation answers as if it did not exist', async () => {
    const owner = await system.newOrganization('standard', 'Owner Co');
    const other = await system.newOrganization('standard', 'Other Co');
    const reply = await addReply(owner, {
      name: 'Mine',
      kind: 'exact',
      triggers: 'mine',
      message: 'Owner says hi',
    });
    const contactId = contactOf(owner, 'Owned', uniquePhone());

    const list = AutomatedRepliesResponseSchema.parse(
      (await other.api.get('getAutomatedReplies')).body,
    );
    expect(list.replies).toEqual([]);
    expect(
      (await other.api.post('updateAutomatedReply', { id: reply.id, name: 'Stolen' })).status,
    ).toBe(404);
    expect((await other.api.post('deleteAutomatedReply', { id: reply.id })).status).toBe(404);
    expect(
      (
        await other.api.post('addAutomatedReply', {
          name: 'x',
          kind: 'exact',
          triggers: 'x',
          message: 'x',
          next_reply_id: reply.id,
        })
      ).status,
    ).toBe(422);
    expect(
      (await other.api.post('updateContactBots', { contact_id: contactId, enabled: false })).status,
    ).toBe(404);
    const still = AutomatedRepliesResponseSchema.parse(
      (await owner.api.get('getAutomatedReplies')).body,
    );
    expect(still.replies).toEqual([expect.objectContaining({ id: reply.id, name: 'Mine' })]);

    // The other organization's customer saying the owner's trigger gets nothing.
    const stranger = uniquePhone();
    await writeAndSettle(other, stranger, 'mine', 'no_answer');
    expect(await answersTo(stranger)).toEqual([]);
  });
});

describe('answering inbound messages', () => {
  test('when a customer writes an exact trigger, then the reply is sent with placeholders filled, its chained reply after it, and counted', async () => {
    const org = await system.newOrganization('standard', 'Exact Co');
    const phone = uniquePhone();
    contactOf(org, 'Ana', phone, { city: 'Lisboa' });
    const chained = await addReply(org, {
      name: 'More',
      kind: 'exact',
      triggers: 'more',
      message: 'Anything else?',
    });
    const reply = await addReply(org, {
      name: 'Hello',
      kind: 'exact',
      triggers: ['hello'],
      message: 'Hi {{name}} from {{custom.city}} ({{phone}}){{custom.missing}}',
      next_reply_id: chained.id,
    });
    await writeAndSettle(org, phone, 'Hello!', 'answered');
    const answers = await waitFor(async () => {
      const sent = await answersTo(phone);
      return sent.length === 2 ? sent : undefined;
    });
    // The chained reply rides on the same command: messaging sends it once the first is accepted.
    expect(answers).toEqual([`Hi Ana from Lisboa (${phone})`, 'Anything else?']);
    const list = AutomatedRepliesResponseSchema.parse(
      (await org.api.get('getAutomatedReplies')).body,
    );
    expect(list.replies.find((item) => item.id === reply.id)?.used).toBe(1);
    expect(list.replies.find((item) => item.id === chained.id)?.used).toBe(1);
  });

  test('when several steps could answer, then only the first in the order answers: flow, exact, contains, bot campaign, welcome, AI bot', async () => {
    const org = await system.newOrganization('standard', 'Order Co');
    withFlow.add(org.company_id);
    withAiBot.add(org.company_id);
    await addReply(org, { name: 'W', kind: 'welcome', message: 'welcome' });
    await addReply(org, {
      name: 'C',
      kind: 'contains',
      triggers: 'price, flow',
      message: 'contains',
    });
    await addReply(org, { name: 'E', kind: 'exact', triggers: 'price, flow', message: 'exact' });
    const bot = await org.api.post('createCampaign', {
      name: 'Bot',
      type: 'bot',
      keywords: 'price, offer',
      message: { type: 'text', text: 'bot campaign for {{1}}' },
      variables: ['contact.name'],
    });
    expect(bot.status).toBe(201);
    // A new customer each (the per-minute limit is 3): each one's first message beats welcome.
    const regular = uniquePhone();
    const cases: [string, string, string][] = [
      [regular, 'flow', 'from the flow'],
      [uniquePhone(), 'price', 'exact'],
      [uniquePhone(), 'what is the PRICE?', 'contains'],
      [uniquePhone(), 'any offer today', 'bot campaign for Test User'],
      [regular, 'something else', 'from the AI bot'],
    ];
    for (const [phone, text, expected] of cases) {
      const before = (await answersTo(phone)).length;
      await writeAndSettle(org, phone, text, 'answered');
      const sent = await waitFor(async () => {
        const all = await answersTo(phone);
        return all.length === before + 1 ? all : undefined;
      });
      expect(sent.at(-1)).toBe(expected);
    }

    const newcomer = uniquePhone();
    await writeAndSettle(org, newcomer, 'good morning', 'answered');
    expect(await waitFor(async () => (await answersTo(newcomer))[0])).toBe('welcome');
  });

  test('when a message holds a contains trigger with other case, accents or punctuation, then it matches as whole words only', async () => {
    const org = await system.newOrganization('standard', 'Contains Co');
    await addReply(org, {
      name: 'Preço',
      kind: 'contains',
      triggers: 'preço, horário de abertura, image',
      message: 'answer',
    });
    const phone = uniquePhone();
    for (const text of ['Qual é o PRECO??', '¡Horario de ABERTURA!', '...preço']) {
      await writeAndSettle(org, phone, text, 'answered');
    }
    for (const text of ['precos baratos', 'horario', 'apreço']) {
      await writeAndSettle(org, phone, text, 'no_answer');
    }
    // A picture without a caption is not the word "image" (messaging's `[image]` stand-in).
    const before = await outcomes('no_answer');
    await write(org, phone, '[image]', { message_type: 'image' });
    await settled('no_answer', before);
    expect(await answersTo(phone)).toEqual(['answer', 'answer', 'answer']);
  });

  test('when a customer taps a button or a list row, then replies match on its id and on its title', async () => {
    const org = await system.newOrganization('standard', 'Buttons Co');
    await addReply(org, { name: 'Yes', kind: 'exact', triggers: 'confirm_yes', message: 'by id' });
    await addReply(org, {
      name: 'Menu',
      kind: 'exact',
      triggers: 'Show menu',
      message: 'by title',
    });
    const phone = uniquePhone();
    const before = await outcomes('answered');
    // As messaging tells of a tap: the title as the text, the id beside it.
    await write(org, phone, 'Sí', { message_type: 'interactive', reply_id: 'confirm_yes' });
    await settled('answered', before);
    const before2 = await outcomes('answered');
    await write(org, phone, 'Show menu', { message_type: 'interactive', reply_id: 'row-7' });
    await settled('answered', before2);
    // Automation counts an answer once messaging has the command; the send itself follows.
    const sent = await waitFor(async () => {
      const answers = await answersTo(phone);
      return answers.length >= 2 ? answers : undefined;
    });
    expect(sent).toEqual(['by id', 'by title']);
  });
});

describe('welcome and redelivery', () => {
  test('when a new contact writes several messages, even two at once, then the welcome reply is sent once', async () => {
    const org = await system.newOrganization('standard', 'Welcome Co');
    await addReply(org, { name: 'W', kind: 'welcome', message: 'Welcome, {{name}}' });
    const phone = uniquePhone();
    const before = await outcomes('answered');
    await Promise.all([
      write(org, phone, 'one', { name: 'Bea' }),
      write(org, phone, 'two', { name: 'Bea' }),
    ]);
    await settled('answered', before);
    await writeAndSettle(org, phone, 'three', 'no_answer');
    await sleep(300);
    expect(await answersTo(phone)).toEqual(['Welcome, Bea']);
  });

  test('when the same message_received arrives again, then it is answered once', async () => {
    const org = await system.newOrganization('standard', 'Redelivery Co');
    const reply = await addReply(org, {
      name: 'R',
      kind: 'exact',
      triggers: 'status',
      message: 'All good',
    });
    const phone = uniquePhone();
    const event = await writeAndSettle(org, phone, 'status', 'answered');
    const before = await outcomes('answered');
    await system.publishEvent(event);
    await settled('answered', before);
    await sleep(500);
    // Handed over again under the same key, which messaging sends once.
    const handed = system.commands.filter(
      (command) => command.contact_id === event.data.contact_id,
    );
    expect(handed.map((command) => command.idempotency_key)).toEqual([
      `automation:${event.data.message_id}`,
      `automation:${event.data.message_id}`,
    ]);
    expect(await answersTo(phone)).toEqual(['All good']);
    const list = AutomatedRepliesResponseSchema.parse(
      (await org.api.get('getAutomatedReplies')).body,
    );
    expect(list.replies.find((item) => item.id === reply.id)?.used).toBe(1);
  });
  test('when customers’ messages arrive in one batch message, then each of them is answered', async () => {
    const org = await system.newOrganization('standard', 'Batched Replies Co');
    await addReply(org, { name: 'P', kind: 'exact', triggers: 'price', message: 'Ten euros' });
    const phones = [uniquePhone(), uniquePhone(), uniquePhone()];
    const before = await outcomes('answered');
    await system.customersWriteTogether(
      org,
      phones.map((phone) => ({ phone, text: 'price' })),
    );
    await settled('answered', before, phones.length);
    for (const phone of phones) {
      expect(
        await waitFor(async () => (await answersTo(phone)).length > 0 && answersTo(phone)),
      ).toEqual(['Ten euros']);
    }
  });
});

describe('safety', () => {
  test('when a contact keeps triggering replies, then at most the configured number per minute are sent', async () => {
    const org = await system.newOrganization('standard', 'Loop Co');
    await addReply(org, { name: 'Ping', kind: 'exact', triggers: 'ping', message: 'pong' });
    const phone = uniquePhone();
    for (let i = 0; i < MAX_PER_MINUTE; i++) await writeAndSettle(org, phone, 'ping', 'answered');
    await writeAndSettle(org, phone, 'ping', 'rate_limited');
    await writeAndSettle(org, phone, 'ping', 'rate_limited');
    await sleep(300);
    expect(await answersTo(phone)).toHaveLength(MAX_PER_MINUTE);
  });

  test('when bots are turned off for a contact, then it gets no automated answer until they are turned back on', async () => {
    const org = await system.newOrganization('standard', 'Handover Co');
    withAiBot.add(org.company_id);
    await addReply(org, { name: 'Hi', kind: 'exact', triggers: 'hi', message: 'hello there' });
    const phone = uniquePhone();
    const contact_id = contactOf(org, 'Human wanted', phone);
    const off = await org.api.post('updateContactBots', { contact_id, enabled: false });
    expect(ContactBotsResponseSchema.parse(off.body)).toEqual({
      status: 'success',
      contact_id,
      bots_enabled: false,
    });
    await writeAndSettle(org, phone, 'hi', 'bots_off');
    await writeAndSettle(org, phone, 'anything', 'bots_off');
    expect(await answersTo(phone)).toEqual([]);
    await org.api.post('updateContactBots', { contact_id, enabled: 'true' });
    await writeAndSettle(org, phone, 'hi', 'answered');
    expect(await waitFor(async () => (await answersTo(phone))[0])).toBe('hello there');
  });

  test('when the month’s message quota is used up, then the answer is not sent and the skip is counted, with nothing parked', async () => {
    const org = await system.newOrganization('free', 'Quota Co');
    await addReply(org, { name: 'Q', kind: 'exact', triggers: 'quota', message: 'never sent' });
    // Messaging refuses every place from now on (its 429), as for a month used up.
    system.messaging.setRoom(org.company_id, 0);
    const phone = uniquePhone();
    await writeAndSettle(org, phone, 'quota', 'quota_exhausted');
    await sleep(300);
    expect(await answersTo(phone)).toEqual([]);
  });

  test('when a message comes from the business’s own number, then it is never answered', async () => {
    const org = await system.newOrganization('standard', 'Echo Co');
    withAiBot.add(org.company_id);
    // Messaging marks a message from the organization's own number as an echo.
    const own = uniquePhone();
    const before = await outcomes('echo');
    await write(org, own, 'hello', { echo: true });
    await settled('echo', before);
    expect(await answersTo(own)).toEqual([]);
  });
});
