// The human inbox through real processes: a customer writes, an agent signs in to the console,
// sees the conversation, takes it, answers it; the business's webhook receiver gets the signed
// `message_sent` and getMessages names the agent who sent the answer. Then what the inbox owes to
// several services at once: the gateway's users (who may be assigned, who a call comes from) and
// campaigns' automated answers (paused after an agent's reply, handing over to a person).
// Messaging's own part of the inbox is tested on messaging alone (its component inbox test).
import { randomBytes } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import {
  AddAgentResponseSchema,
  BrokerEventMessageSchema,
  brokerEventsOf,
  ConversationStateResponseSchema,
  ConversationsResponseSchema,
  CreateOrganizationResponseSchema,
  EXCHANGES,
  MessagesResponseSchema,
  WebhookResponseSchema,
  type BrokerEvent,
  type Conversation,
  type CreateOrganizationResponse,
} from '@switchboard/contracts';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../../services/campaigns/test/support/chat-completions-server';
import { callSimulator, startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import {
  callGateway,
  invitationOf,
  signIn,
  type Credentials,
  type SignedInSession,
} from '../support/console-client';
import { conversationUpdated, uniquePhone, waitFor } from '../support/polling';
import { jsonBody } from '../support/test-infra';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let receiver: Receiver;
let chat: ChatCompletionsServer;
let amqp: ChannelModel;
/** Every event published on `svc.events`, checked against contracts. */
const events: BrokerEvent[] = [];
/** Every `conversation_updated` published on the console exchange. */
const consoleEvents: unknown[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  chat = await startChatCompletionsServer();
  // The business's webhook receiver and the AI bot's model are local http servers.
  e2e = await startE2eSystem('e2einbox', { ALLOW_PRIVATE_URLS: 'true' });
  amqp = await connect(e2e.amqpUrl);
  const tap = await amqp.createChannel();
  for (const [exchange, seen] of [
    [
      EXCHANGES.events,
      (json: unknown) => {
        // One event, or a batch of the events one write stored.
        const parsed = BrokerEventMessageSchema.safeParse(json);
        if (parsed.success) events.push(...brokerEventsOf(parsed.data));
      },
    ],
    [EXCHANGES.console, (json: unknown) => consoleEvents.push(json)],
  ] as const) {
    const { queue } = await tap.assertQueue('', { exclusive: true });
    await tap.bindQueue(queue, exchange, '#');
    await tap.consume(queue, (msg) => {
      if (!msg) return;
      seen(JSON.parse(msg.content.toString()));
      tap.ack(msg);
    });
  }
});

afterAll(async () => {
  await amqp?.close().catch(() => undefined);
  await e2e?.stop();
  await receiver?.close();
  await chat?.stop();
});

const api = (method: string, operation: string, who: Credentials, body?: Record<string, unknown>) =>
  callGateway(e2e.gateway, method, `/api/svc/${operation}`, who, body);

test('when a customer writes and an agent signs in, takes the conversation and replies, then the business webhook gets the signed message_sent and getMessages names the agent', async () => {
  const created = await e2e.createOrganization('Corner Shop', 'standard', {
    owner_email: 'owner@corner.example',
    owner_password: 'owner passphrase',
  });
  const owner = await signIn(e2e.gateway, 'owner@corner.example', 'owner passphrase');
  const hook = await callGateway(e2e.gateway, 'POST', '/developer/webhooks', owner, {
    name: 'Our CRM',
    url: receiver.url,
    events: ['message_sent'],
  });
  expect(hook.status).toBe(201);
  receiver.trust(WebhookResponseSchema.parse(hook.body).webhook.secret);
  const added = await api('POST', 'addAgent', owner, {
    name: 'Lia',
    email: 'lia@corner.example',
    role: 'agent',
  });
  expect(added.status).toBe(201);
  const { invitation_url } = AddAgentResponseSchema.parse(added.body);
  const accepted = await callGateway(
    e2e.gateway,
    'POST',
    '/auth/accept-invitation',
    {},
    { invitation: invitationOf(invitation_url), password: 'agent passphrase' },
  );
  expect(accepted.status).toBe(200);

  // A customer writes to the business's number.
  const phone = '393479876543';
  const injected = await fetch(`${e2e.simulator}/sim/inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      phone_number_id: created.channel.phone_number_id,
      from: phone,
      profile_name: 'Gino',
      text: 'Is my order ready?',
    }),
  });
  expect(injected.status).toBe(200);

  // The agent signs in and finds the conversation nobody has yet.
  const lia = await signIn(e2e.gateway, 'lia@corner.example', 'agent passphrase');
  const lia_id = lia.user.id as number;
  const waiting = await until(async () => {
    const listed = await api('GET', 'getConversations?assignee=none&unread=true', lia);
    const { conversations } = ConversationsResponseSchema.parse(listed.body);
    return conversations.find((c) => c.phone === phone);
  }, "the customer's conversation in the inbox");
  expect(waiting).toMatchObject({
    contact_name: 'Gino',
    status: 'open',
    assigned_agent_id: null,
    unread_count: 1,
    last_message: { direction: 'inbound', message: 'Is my order ready?' },
  });

  const taken = await api('POST', 'assignConversation', lia, {
    contact_id: waiting.contact_id,
    agent_id: lia_id,
  });
  expect(taken.status).toBe(200);
  expect(ConversationStateResponseSchema.parse(taken.body).conversation).toMatchObject({
    assigned_agent_id: lia_id,
  });
  const mine = ConversationsResponseSchema.parse(
    (await api('GET', 'getConversations?assignee=me', lia)).body,
  ).conversations;
  expect(mine.map((c) => c.contact_id)).toEqual([waiting.contact_id]);

  const sent = await api('POST', 'sendMessageToPhoneNumber', lia, {
    phone,
    message: 'Yes Gino, it is ready for pickup',
  });
  expect(sent.status).toBe(200);
  const reported = await until(async () => {
    return receiver.requests
      .map((request) => ({
        verified: request.verified,
        event: JSON.parse(request.body.toString()),
      }))
      .find(({ event }) => event.data.message_id === sent.body.message_id);
  }, "the signed message_sent of the agent's reply");
  expect(reported).toMatchObject({
    verified: true,
    event: {
      event: 'message_sent',
      data: { phone, contact_id: waiting.contact_id, company_id: created.organization.company_id },
    },
  });

  const messages = MessagesResponseSchema.parse(
    (await api('GET', `getMessages?contact_id=${waiting.contact_id}`, owner)).body,
  ).messages;
  expect(messages.map((m) => [m.direction, m.message, m.sent_by_agent_id])).toEqual([
    ['outbound', 'Yes Gino, it is ready for pickup', lia_id],
    ['inbound', 'Is my order ready?', null],
  ]);
  const after = ConversationsResponseSchema.parse(
    (await api('GET', 'getConversations?assignee=me', lia)).body,
  ).conversations;
  expect(after).toEqual([
    expect.objectContaining({ contact_id: waiting.contact_id, unread_count: 0, status: 'open' }),
  ]);
});

const PASSWORD = 'correct horse battery';
const newEmail = (who: string) => `${who}.${randomBytes(4).toString('hex')}@example.com`;

/** An organization and the calls its token makes (the token in the body of a POST). */
interface Organization {
  created: CreateOrganizationResponse;
  company_id: number;
  api: Credentials & {
    post(
      operation: string,
      body: Record<string, unknown>,
      headers?: Record<string, string>,
    ): Promise<{ status: number; body: Awaited<ReturnType<typeof jsonBody>> }>;
  };
}

interface Team {
  org: Organization;
  owner: SignedInSession;
}

/** An organization made with an owner who signs in, as a business starts with the console. */
async function organizationWithOwner(name: string): Promise<Team> {
  const email = newEmail('owner');
  const created = await callGateway(
    e2e.gateway,
    'POST',
    '/admin/organizations',
    { token: e2e.adminToken },
    { name, plan: 'standard', owner_email: email, owner_password: PASSWORD },
  );
  expect(created.status).toBe(201);
  const organization = CreateOrganizationResponseSchema.parse(created.body);
  const token = organization.token;
  return {
    org: {
      created: organization,
      company_id: organization.organization.company_id,
      api: {
        token,
        async post(operation, body, headers = {}) {
          const response = await fetch(`${e2e.gateway}/api/svc/${operation}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: JSON.stringify({ ...body, token }),
          });
          return { status: response.status, body: await jsonBody(response) };
        },
      },
    },
    owner: await signIn(e2e.gateway, email, PASSWORD),
  };
}

/** A user with the `agent` role, added by the owner, who accepts the invitation and signs in. */
async function addAgent(team: Team) {
  const email = newEmail('agent');
  const added = await callGateway(e2e.gateway, 'POST', '/api/svc/addAgent', team.owner, {
    name: 'Ada Agent',
    email,
    role: 'agent',
  });
  expect(added.status).toBe(201);
  const { agent, invitation_url } = AddAgentResponseSchema.parse(added.body);
  const accepted = await callGateway(
    e2e.gateway,
    'POST',
    '/auth/accept-invitation',
    {},
    { invitation: invitationOf(invitation_url), password: PASSWORD },
  );
  expect(accepted.status).toBe(200);
  return { agent_id: agent.id, session: await signIn(e2e.gateway, email, PASSWORD) };
}

const post = (who: Credentials, operation: string, body: Record<string, unknown>) =>
  callGateway(e2e.gateway, 'POST', `/api/svc/${operation}`, who, body);
const get = (who: Credentials, operation: string, query: Record<string, string | number> = {}) =>
  callGateway(
    e2e.gateway,
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

type MessageReceived = Extract<BrokerEvent, { event: 'message_received' }>;

/** An end user writes to the organization; resolves with the `message_received` it became. */
async function customerWrites(org: Organization, input: Record<string, unknown>) {
  const injected = await callSimulator(e2e.simulator, '/inbound', {
    phone_number_id: org.created.channel.phone_number_id,
    ...input,
  });
  return waitFor(
    () =>
      events.find(
        (event): event is MessageReceived =>
          event.event === 'message_received' && event.data.message_wamid === injected.wamid,
      ),
    15_000,
    `message_received of ${String(injected.wamid)}`,
  );
}

/** Waits for a `conversation_updated` of the contact matching `data`. */
const updated = (contact_id: number, data: Record<string, unknown>) =>
  conversationUpdated(consoleEvents, contact_id, data);

/** How many inbound messages automation settled with this outcome (campaigns' counter). */
async function outcomes(outcome: string): Promise<number> {
  const text = await (await fetch(`${e2e.system.urls.campaigns}/metrics`)).text();
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
  const event = await customerWrites(org, { from, text });
  await waitFor(
    async () => ((await outcomes(outcome)) > before ? true : undefined),
    15_000,
    `automation outcome ${outcome}`,
  );
  return event;
}

const sentTexts = async (phone: string): Promise<string[]> =>
  (
    (await callSimulator(e2e.simulator, `/sent?to=${phone}`)).sent as {
      request: { text?: { body: string } };
    }[]
  ).map((record) => record.request.text?.body ?? '');

describe('assignConversation: who may be assigned is the gateway’s to say', () => {
  test('when another organization is involved, then its conversations are not found and its agents cannot be assigned; nor can a deactivated one', async () => {
    const mine = await organizationWithOwner('Mine Co');
    const theirs = await organizationWithOwner('Theirs Co');
    const theirAgent = await addAgent(theirs);
    const myAgent = await addAgent(mine);
    const { data } = await customerWrites(mine.org, { from: uniquePhone(), text: 'Hi' });

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
    const { data } = await customerWrites(team.org, { from: phone, text: 'Anyone?' });
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
