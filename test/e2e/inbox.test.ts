// The human inbox through real processes: a customer writes, an agent signs in to the console,
// sees the conversation, takes it, answers it; the business's webhook receiver gets the signed
// `message_sent` and getMessages names the agent who sent the answer.
import {
  AddAgentResponseSchema,
  ConversationStateResponseSchema,
  ConversationsResponseSchema,
  MessagesResponseSchema,
  WebhookResponseSchema,
} from '@switchboard/contracts';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { callGateway, invitationOf, signIn, type Credentials } from '../support/console-client';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  // The business's webhook receiver is a local http server.
  e2e = await startE2eSystem('e2einbox', { ALLOW_PRIVATE_URLS: 'true' });
});

afterAll(async () => {
  await e2e?.stop();
  await receiver?.close();
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
