import { randomBytes } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import {
  AddAgentResponseSchema,
  ConversationStateResponseSchema,
  ConversationUpdatedEventSchema,
  ConversationsResponseSchema,
  CreateOrganizationResponseSchema,
  EXCHANGES,
  MessagesResponseSchema,
  type Conversation,
} from '@switchboard/contracts';
import {
  apiClient,
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../../../campaigns/test/support/system-harness';
import {
  callGateway,
  invitationOf,
  signIn,
  type Credentials,
  type SignedInSession,
} from '../../../../test/support/console-client';
import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../../../campaigns/test/support/chat-completions-server';

jest.setTimeout(120_000);

const PASSWORD = 'correct horse battery';

let system: MessagingSystem;
let chat: ChatCompletionsServer;
let amqp: ChannelModel;
/** Every `conversation_updated` published on the console exchange, checked against contracts. */
const consoleEvents: unknown[] = [];

beforeAll(async () => {
  chat = await startChatCompletionsServer();
  system = await startMessagingSystem('inbox', {
    campaignsEnv: { ALLOW_PRIVATE_URLS: 'true' },
  });
  amqp = await connect(system.amqpUrl);
  const tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.console, '#');
  await tap.consume(queue, (msg) => {
    if (!msg) return;
    consoleEvents.push(JSON.parse(msg.content.toString()));
    tap.ack(msg);
  });
});

afterAll(async () => {
  await amqp?.close().catch(() => undefined);
  await system?.stop();
  await chat?.stop();
});

const gateway = () => system.stack.gateway.url;
const newEmail = (who: string) => `${who}.${randomBytes(4).toString('hex')}@example.com`;

interface Team {
  org: Organization;
  owner: SignedInSession;
}

/** An organization made with an owner who signs in, as a business starts with the console. */
async function organizationWithOwner(name: string): Promise<Team> {
  const email = newEmail('owner');
  const created = await callGateway(
    gateway(),
    'POST',
    '/admin/organizations',
    { token: system.stack.adminToken },
    { name, plan: 'standard', owner_email: email, owner_password: PASSWORD },
  );
  expect(created.status).toBe(201);
  const organization = CreateOrganizationResponseSchema.parse(created.body);
  return {
    org: {
      created: organization,
      company_id: organization.organization.company_id,
      api: apiClient(gateway(), organization.token),
    },
    owner: await signIn(gateway(), email, PASSWORD),
  };
}

/** A user with the `agent` role, added by the owner, who accepts the invitation and signs in. */
async function addAgent(team: Team) {
  const email = newEmail('agent');
  const added = await callGateway(gateway(), 'POST', '/api/svc/addAgent', team.owner, {
    name: 'Ada Agent',
    email,
    role: 'agent',
  });
  expect(added.status).toBe(201);
  const { agent, invitation_url } = AddAgentResponseSchema.parse(added.body);
  const accepted = await callGateway(
    gateway(),
    'POST',
    '/auth/accept-invitation',
    {},
    { invitation: invitationOf(invitation_url), password: PASSWORD },
  );
  expect(accepted.status).toBe(200);
  return { agent_id: agent.id, session: await signIn(gateway(), email, PASSWORD) };
}

const post = (who: Credentials, operation: string, body: Record<string, unknown>) =>
  callGateway(gateway(), 'POST', `/api/svc/${operation}`, who, body);
const get = (who: Credentials, operation: string, query: Record<string, string | number> = {}) =>
  callGateway(
    gateway(),
    'GET',
    `/api/svc/${operation}?${new URLSearchParams(
      Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]),
    )}`,
    who,
  );

async function conversations(
  who: Credentials,
  query: Record<string, string | number> = {},
): Promise<Conversation[]> {
  const listed = await get(who, 'getConversations', query);
  expect(listed.status).toBe(200);
  return ConversationsResponseSchema.parse(listed.body).conversations;
}

const contactsIn = async (who: Credentials, query: Record<string, string | number> = {}) =>
  (await conversations(who, query)).map((conversation) => conversation.contact_id).sort();

/** The `conversation_updated` events of one contact, in the order published. */
const updatesOf = (contact_id: number) =>
  consoleEvents
    .map((event) => ConversationUpdatedEventSchema.parse(event))
    .filter((event) => event.data.contact_id === contact_id);

/** Waits for a `conversation_updated` of the contact matching `data`. */
const updated = (contact_id: number, data: Record<string, unknown>) =>
  waitFor(
    () =>
      updatesOf(contact_id).find((event) =>
        Object.entries(data).every(([key, value]) => (event.data as never)[key] === value),
      ),
    10_000,
    `conversation_updated ${JSON.stringify(data)}`,
  );

/** How many inbound messages automation settled with this outcome (campaigns' counter). */
async function outcomes(outcome: string): Promise<number> {
  const text = await (await fetch(`${system.campaigns!.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (row) =>
        row.startsWith('switchboard_automated_answers_total{') &&
        row.includes(`outcome="${outcome}"`),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function writeAndSettle(org: Organization, from: string, text: string, outcome: string) {
  const before = await outcomes(outcome);
  const event = await system.customerWrites(org, { from, text });
  await waitFor(
    async () => ((await outcomes(outcome)) > before ? true : undefined),
    15_000,
    `automation outcome ${outcome}`,
  );
  return event;
}

const sentTexts = async (phone: string): Promise<string[]> =>
  (
    (await system.sim('GET', `/sent?to=${phone}`)).sent as {
      request: { text?: { body: string } };
    }[]
  ).map((record) => record.request.text?.body ?? '');

describe('assignConversation and getConversations filters', () => {
  test('when an agent signs in, then they see a new inbound conversation, assign it to themselves and find it under me; the console hears each change', async () => {
    const team = await organizationWithOwner('Inbox Co');
    const ada = await addAgent(team);
    const phone = uniquePhone();
    const other = uniquePhone();
    const received = await system.customerWrites(team.org, { from: phone, text: 'Hi, help?' });
    await system.customerWrites(team.org, { from: other, text: 'Hello' });
    const { contact_id } = received.data;

    const listed = await conversations(ada.session);
    expect(listed.find((c) => c.contact_id === contact_id)).toMatchObject({
      contact_id,
      assigned_agent_id: null,
      status: 'open',
      unread_count: 1,
      last_message: { direction: 'inbound', message: 'Hi, help?', sent_by_agent_id: null },
    });
    await updated(contact_id, { unread_count: 1, status: 'open', assigned_agent_id: null });

    const assigned = await post(ada.session, 'assignConversation', {
      contact_id,
      agent_id: ada.agent_id,
    });
    expect(assigned.status).toBe(200);
    expect(ConversationStateResponseSchema.parse(assigned.body).conversation).toMatchObject({
      contact_id,
      assigned_agent_id: ada.agent_id,
      status: 'open',
      unread_count: 1,
    });
    await updated(contact_id, { assigned_agent_id: ada.agent_id });

    const otherId = (await conversations(ada.session)).find((c) => c.phone === other)!.contact_id;
    expect(await contactsIn(ada.session, { assignee: 'me' })).toEqual([contact_id]);
    expect(await contactsIn(team.owner, { assignee: 'me' })).toEqual([]);
    expect(await contactsIn(team.org.api, { assignee: ada.agent_id })).toEqual([contact_id]);
    expect(await contactsIn(team.org.api, { assignee: 'none' })).toEqual([otherId]);
    expect(await contactsIn(team.org.api, { unread: 'true' })).toEqual(
      [contact_id, otherId].sort(),
    );

    const closed = await post(team.owner, 'setConversationStatus', {
      contact_id: otherId,
      status: 'closed',
    });
    expect(closed.status).toBe(200);
    await updated(otherId, { status: 'closed' });
    expect(await contactsIn(team.org.api, { status: 'closed' })).toEqual([otherId]);
    expect(await contactsIn(team.org.api, { status: 'open' })).toEqual([contact_id]);

    // The owner answers the other contact: read now, and the console hears the count drop.
    const answer = await post(team.owner, 'sendMessageToPhoneNumber', {
      phone: other,
      message: 'On it',
    });
    expect(answer.status).toBe(200);
    await updated(otherId, { unread_count: 0 });
    expect(await contactsIn(team.org.api, { unread: 'false' })).toEqual([otherId]);

    // A closed conversation opens again when the contact writes back.
    await system.customerWrites(team.org, { from: other, text: 'One more thing' });
    await updated(otherId, { status: 'open', unread_count: 1 });

    const unassigned = await post(team.org.api, 'assignConversation', {
      contact_id,
      agent_id: null,
    });
    expect(unassigned.body).toMatchObject({ conversation: { assigned_agent_id: null } });
    expect(await contactsIn(ada.session, { assignee: 'me' })).toEqual([]);
  });

  test('when the input is wrong, then 422 names the field, and an unknown contact is 404', async () => {
    const team = await organizationWithOwner('Typo Co');
    const { data } = await system.customerWrites(team.org, { from: uniquePhone(), text: 'Hi' });
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['assignConversation', { agent_id: null }, /^contact_id: /],
      ['assignConversation', { contact_id: data.contact_id }, /^agent_id: /],
      ['assignConversation', { contact_id: data.contact_id, agent_id: 'x' }, /^agent_id: /],
      ['assignConversation', { contact_id: 'abc', agent_id: null }, /^contact_id: /],
      ['setConversationStatus', { contact_id: data.contact_id, status: 'done' }, /^status: /],
      ['setConversationStatus', { status: 'open' }, /^contact_id: /],
    ];
    for (const [operation, body, message] of cases) {
      const answer = await post(team.org.api, operation, body);
      expect({ operation, body, status: answer.status }).toEqual({ operation, body, status: 422 });
      expect(answer.body.message).toMatch(message);
    }
    const wrongQueries: Record<string, string>[] = [
      { status: 'pending' },
      { assignee: 'someone' },
      { unread: 'maybe' },
    ];
    for (const query of wrongQueries) {
      const answer = await get(team.org.api, 'getConversations', query);
      expect({ query, status: answer.status }).toEqual({ query, status: 422 });
    }
    // `me` is a signed-in user; a token acts for nobody.
    const me = await get(team.org.api, 'getConversations', { assignee: 'me' });
    expect(me.status).toBe(422);
    expect(me.body.message).toMatch(/^assignee: me needs a signed-in user/);

    const unknown = await post(team.org.api, 'setConversationStatus', {
      contact_id: 999_999_999,
      status: 'closed',
    });
    expect(unknown.status).toBe(404);
  });

  test('when another organization is involved, then its conversations are not found and its agents cannot be assigned; nor can a deactivated one', async () => {
    const mine = await organizationWithOwner('Mine Co');
    const theirs = await organizationWithOwner('Theirs Co');
    const theirAgent = await addAgent(theirs);
    const myAgent = await addAgent(mine);
    const { data } = await system.customerWrites(mine.org, { from: uniquePhone(), text: 'Hi' });

    const foreignConversation = await post(theirAgent.session, 'assignConversation', {
      contact_id: data.contact_id,
      agent_id: theirAgent.agent_id,
    });
    expect(foreignConversation.status).toBe(404);
    const foreignStatus = await post(theirs.org.api, 'setConversationStatus', {
      contact_id: data.contact_id,
      status: 'closed',
    });
    expect(foreignStatus.status).toBe(404);
    expect(await contactsIn(theirs.org.api)).toEqual([]);

    const foreignAgent = await post(mine.owner, 'assignConversation', {
      contact_id: data.contact_id,
      agent_id: theirAgent.agent_id,
    });
    expect(foreignAgent.status).toBe(422);
    expect(foreignAgent.body.message).toBe(
      `agent_id: no active user ${theirAgent.agent_id} in this organization`,
    );
    // Also through the token, which the gateway's fast path would otherwise forward unchecked.
    const byToken = await mine.org.api.post('assignConversation', {
      contact_id: data.contact_id,
      agent_id: theirAgent.agent_id,
    });
    expect(byToken.status).toBe(422);

    const deactivated = await post(mine.owner, 'updateAgent', {
      agent_id: myAgent.agent_id,
      active: false,
    });
    expect(deactivated.status).toBe(200);
    const inactive = await post(mine.owner, 'assignConversation', {
      contact_id: data.contact_id,
      agent_id: myAgent.agent_id,
    });
    expect(inactive.status).toBe(422);
    const [conversation] = await conversations(mine.org.api);
    expect(conversation!.assigned_agent_id).toBeNull();
  });
});

describe('an agent replies', () => {
  test('when an agent replies from the console, then getMessages names the agent, the conversation is read and out of needs_human; a header sent by a client names nobody', async () => {
    const team = await organizationWithOwner('Reply Co');
    const ada = await addAgent(team);
    const phone = uniquePhone();
    const { data } = await system.customerWrites(team.org, { from: phone, text: 'Anyone?' });
    await post(team.org.api, 'setConversationStatus', {
      contact_id: data.contact_id,
      status: 'needs_human',
    });

    const reply = await post(ada.session, 'sendMessageToPhoneNumber', {
      phone,
      message: 'Ada here, how can I help?',
    });
    expect(reply.status).toBe(200);
    // A client cannot claim to be a user: the gateway forwards no x-user-* header of its own.
    const api = await team.org.api.post(
      'sendMessageToPhoneNumber',
      { phone, message: 'From the API' },
      { 'x-user-id': String(ada.agent_id), 'x-user-role': 'owner' },
    );
    expect(api.status).toBe(200);

    const messages = MessagesResponseSchema.parse(
      (await get(team.owner, 'getMessages', { contact_id: data.contact_id })).body,
    ).messages;
    expect(messages.map((m) => [m.message, m.sent_by_agent_id])).toEqual([
      ['From the API', null],
      ['Ada here, how can I help?', ada.agent_id],
      ['Anyone?', null],
    ]);
    await waitFor(async () => {
      const [conversation] = await conversations(team.org.api);
      return conversation!.status === 'open' && conversation!.unread_count === 0 ? true : undefined;
    });
    await updated(data.contact_id, { status: 'open', unread_count: 0 });
  });

  test('when an agent has replied, then keyword replies stay quiet for that contact while another contact still gets them', async () => {
    const team = await organizationWithOwner('Pause Co');
    const ada = await addAgent(team);
    const added = await team.org.api.post('addAutomatedReply', {
      name: 'Price',
      kind: 'exact',
      triggers: 'price',
      message: 'Prices are on our site',
    });
    expect(added.status).toBe(201);
    const phone = uniquePhone();
    await writeAndSettle(team.org, phone, 'price', 'answered');
    await waitFor(async () => ((await sentTexts(phone)).length === 1 ? true : undefined));

    const reply = await post(ada.session, 'sendMessageToPhoneNumber', {
      phone,
      message: 'Ada here: which model?',
    });
    expect(reply.status).toBe(200);
    const paused = await writeAndSettle(team.org, phone, 'price', 'agent_replying');
    expect(paused.automation_paused).toBe(true);

    const stranger = uniquePhone();
    await writeAndSettle(team.org, stranger, 'price', 'answered');
    await waitFor(async () => ((await sentTexts(stranger)).length === 1 ? true : undefined));
    // The answer to the stranger came after the paused message was settled: none for the contact.
    expect(await sentTexts(phone)).toEqual(['Prices are on our site', 'Ada here: which model?']);
  });
});

describe('the 24-hour customer service window', () => {
  test('when the contact last wrote over 24 hours ago, then a free-form message is refused naming the window and nothing is sent; a template still goes; after they write again free-form goes', async () => {
    const team = await organizationWithOwner('Window Co');
    const phone = uniquePhone();
    const dayAndHourAgo = Math.floor(Date.now() / 1000) - 25 * 3600;
    await system.customerWrites(team.org, {
      from: phone,
      text: 'Old question',
      timestamp: dayAndHourAgo,
    });

    const before = (await system.sim('GET', '/sent?include_rejected=true')).sent.length;
    for (const body of [
      { phone, message: 'Late answer' },
      { phone, message: 'With buttons', buttons: ['Yes', 'No'] },
    ]) {
      const refused = await team.org.api.post('sendMessageToPhoneNumber', body);
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ status: 'error', code: 'outside_service_window' });
      expect(refused.body.message).toMatch(/^Outside the 24-hour customer service window/);
    }
    const media = await team.org.api.post('sendmedia', {
      phone,
      type: 'image',
      url: 'https://example.com/a.png',
    });
    expect(media.status).toBe(422);
    expect((await system.sim('GET', '/sent?include_rejected=true')).sent.length).toBe(before);

    const waba_id = system.simulator.state.channels.get(team.org.created.channel.phone_number_id)!
      .registration.waba_id;
    await system.sim('POST', '/templates', {
      waba_id,
      name: 'follow_up',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Can we help further?' }],
    });
    await team.org.api.get('getTemplates', { refresh: 1 });
    const template = await team.org.api.post('sendtemplatemessage', {
      phone,
      template_name: 'follow_up',
      template_language: 'en_US',
    });
    expect(template.status).toBe(200);

    await system.customerWrites(team.org, { from: phone, text: 'Yes please' });
    const free = await team.org.api.post('sendMessageToPhoneNumber', { phone, message: 'Sure' });
    expect(free.status).toBe(200);
    // A number that never wrote is left to the provider, as before.
    const fresh = await team.org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Hello',
    });
    expect(fresh.status).toBe(200);
  });
});

describe('the window check of repeated sends', () => {
  test('when the contact wrote within the window, then free-form answers to them go without reading their conversation each time', async () => {
    const team = await organizationWithOwner('Chatty Co');
    const phone = uniquePhone();
    const { data } = await system.customerWrites(team.org, { from: phone, text: 'Hi there' });
    const conversationsCollection = system.stack.messaging.db.collection('conversations');
    const reads = jest.spyOn(conversationsCollection, 'findOne');
    try {
      for (const message of ['One', 'Two', 'Three']) {
        const answer = await team.org.api.post('sendMessageToPhoneNumber', { phone, message });
        expect(answer.status).toBe(200);
      }
      const own = reads.mock.calls.filter(
        ([filter]) =>
          (filter as { _id?: unknown })?._id === `${team.org.company_id}:${data.contact_id}`,
      );
      expect(own).toHaveLength(0);
    } finally {
      reads.mockRestore();
    }
    expect(await sentTexts(phone)).toEqual(['One', 'Two', 'Three']);
  });
});

describe('hand-overs put the conversation in needs_human', () => {
  test("when a flow's hand-over step runs, then the conversation needs a person and automation stops for the contact", async () => {
    const team = await organizationWithOwner('Flow Co');
    const flow = await team.org.api.post('addFlow', {
      name: 'Help',
      triggers: ['help'],
      steps: [
        { id: 'human', type: 'hand_over', message: { type: 'text', text: 'A person will write' } },
      ],
    });
    expect(flow.status).toBe(201);
    const phone = uniquePhone();
    const { data } = await writeAndSettle(team.org, phone, 'help', 'answered');
    await updated(data.contact_id, { status: 'needs_human' });
    expect(await contactsIn(team.owner, { status: 'needs_human' })).toEqual([data.contact_id]);
    await writeAndSettle(team.org, phone, 'help', 'bots_off');
  });

  test("when the AI bot's answer carries the hand-over marker, then the conversation needs a person and the contact gets the answer without the marker", async () => {
    const team = await organizationWithOwner('Bot Co');
    const saved = await team.org.api.post('updateAIBotSettings', {
      endpoint: chat.baseUrl,
      model: 'tiny-chat',
      system_prompt: 'Write [handover] when the customer asks for a person.',
      enabled: true,
    });
    expect(saved.status).toBe(200);
    const phone = uniquePhone();
    const first = await writeAndSettle(team.org, phone, 'Hello', 'no_answer');
    const switched = await team.org.api.post('updateAIBot', {
      id: first.data.contact_id,
      enabled: true,
    });
    expect(switched.status).toBe(200);
    chat.setMode({ kind: 'fixed', content: 'A colleague will write to you. [handover]' });
    try {
      await writeAndSettle(team.org, phone, 'I want a person', 'answered');
    } finally {
      chat.setMode({ kind: 'echo' });
    }
    await updated(first.data.contact_id, { status: 'needs_human' });
    await waitFor(async () =>
      (await sentTexts(phone)).includes('A colleague will write to you.') ? true : undefined,
    );
  });
});
