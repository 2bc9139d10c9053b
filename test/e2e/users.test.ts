// The console's path through real processes: an owner accepts the invitation made with the
// organization, signs in, makes an API token, a webhook and an agent; the agent signs in and
// answers a customer through the gateway's proxy with the session cookie, and the business's
// signed webhook reports the send; deactivation and token deletion take effect.
import {
  AddAgentResponseSchema,
  CreateNamedTokenResponseSchema,
  SessionResponseSchema,
  WebhookResponseSchema,
} from '@switchboard/contracts';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import {
  callGateway,
  invitationOf,
  sessionCookieOf,
  signIn,
  type Credentials,
} from '../support/console-client';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  // The business's webhook receiver is a local http server.
  e2e = await startE2eSystem('e2eusers', { ALLOW_PRIVATE_URLS: 'true' });
});

afterAll(async () => {
  await e2e?.stop();
  await receiver?.close();
});

const api = (method: string, operation: string, who: Credentials, body?: Record<string, unknown>) =>
  callGateway(e2e.gateway, method, `/api/svc/${operation}`, who, body);

async function acceptInvitation(invitationUrl: string, password: string) {
  const accepted = await callGateway(
    e2e.gateway,
    'POST',
    '/auth/accept-invitation',
    {},
    {
      invitation: invitationOf(invitationUrl),
      password,
    },
  );
  expect(accepted.status).toBe(200);
  const { csrf_token, user } = SessionResponseSchema.parse(accepted.body);
  const { cookie } = sessionCookieOf(accepted.headers.get('set-cookie'));
  return { cookie, csrf: csrf_token, user };
}

test('when an owner signs in, makes a token, a webhook and an agent, and the agent answers a customer with the session cookie, then the business webhook reports the send, and deactivation and token deletion take effect at once', async () => {
  const created = await e2e.createOrganization('Help Desk', 'standard', {
    owner_email: 'owner@helpdesk.example',
  });
  const owner = await acceptInvitation(created.owner!.invitation_url!, 'owner passphrase');
  expect(owner.user).toMatchObject({ email: 'owner@helpdesk.example', role: 'owner' });
  const again = await signIn(e2e.gateway, 'owner@helpdesk.example', 'owner passphrase');
  expect((await callGateway(e2e.gateway, 'GET', '/auth/session', again)).status).toBe(200);

  // A token for the business's own system, used by an API client.
  const tokenAnswer = await api('POST', 'createToken', owner, { name: 'CRM sync' });
  expect(tokenAnswer.status).toBe(201);
  const { token, token_id } = CreateNamedTokenResponseSchema.parse(tokenAnswer.body);
  const contact = await api(
    'POST',
    'makeContact',
    { token },
    { name: 'Ana', phone: '393471234567' },
  );
  expect(contact.status).toBe(201);

  // The business's webhook, registered from the console.
  const hook = await callGateway(e2e.gateway, 'POST', '/developer/webhooks', owner, {
    name: 'Our CRM',
    url: receiver.url,
    events: ['message_sent'],
  });
  expect(hook.status).toBe(201);
  receiver.trust(WebhookResponseSchema.parse(hook.body).webhook.secret);

  // An agent, invited by the owner.
  const added = await api('POST', 'addAgent', owner, {
    name: 'Bo',
    email: 'bo@helpdesk.example',
    role: 'agent',
  });
  expect(added.status).toBe(201);
  const { agent, invitation_url } = AddAgentResponseSchema.parse(added.body);
  const bo = await acceptInvitation(invitation_url, 'agent passphrase');

  // The agent reads and writes through the proxy with the session cookie.
  const contacts = await api('GET', 'getContacts', bo);
  expect(contacts.status).toBe(200);
  expect(contacts.body.contacts).toEqual([expect.objectContaining({ name: 'Ana' })]);
  const sent = await api('POST', 'sendMessageToPhoneNumber', bo, {
    phone: '393471234567',
    message: 'Hello Ana, Bo here',
  });
  expect(sent.status).toBe(200);
  expect(sent.body.status).toBe('success');
  const reported = await until(async () => {
    const found = receiver.requests
      .map((request) => ({
        verified: request.verified,
        event: JSON.parse(request.body.toString()),
      }))
      .find(({ event }) => event.data.message_id === sent.body.message_id);
    return found;
  }, "the signed message_sent of the agent's reply");
  expect(reported).toMatchObject({
    verified: true,
    event: { event: 'message_sent', data: { phone: '393471234567' } },
  });
  const noCsrf = await api(
    'POST',
    'sendMessageToPhoneNumber',
    { cookie: bo.cookie },
    {
      phone: '393471234567',
      message: 'forged',
    },
  );
  expect(noCsrf.status).toBe(403);
  const forbidden = await api('POST', 'createToken', bo, { name: 'mine' });
  expect(forbidden.status).toBe(403);
  expect(forbidden.body.message).toContain('you are signed in as an agent');

  // The owner deactivates the agent and deletes the token.
  const off = await api('POST', 'updateAgent', owner, { agent_id: agent.id, active: false });
  expect(off.status).toBe(200);
  expect((await api('GET', 'getContacts', bo)).status).toBe(401);
  const deleted = await api('DELETE', 'deleteToken', owner, { token_id });
  expect(deleted.status).toBe(200);
  const refused = await api('GET', 'getContacts', { token });
  expect(refused).toMatchObject({ status: 401, body: { message: 'Invalid token' } });

  const out = await callGateway(e2e.gateway, 'POST', '/auth/sign-out', owner);
  expect(out.status).toBe(200);
  expect((await api('GET', 'getAgents', owner)).status).toBe(401);
});
