// No credential reaches a log line or a span: the inbound token in the provider's webhook path
// (and messaging's lookup by it), the verify token in the provider's check, the API token, and
// the console's: passwords, the session cookie, its CSRF token, an invitation.
import { createHmac } from 'node:crypto';
import type { CreateOrganizationResponse } from '@switchboard/contracts';
import { callGateway, invitationOf, sessionCookieOf, signIn } from '../support/console-client';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let otlp: OtlpReceiver;
let org: CreateOrganizationResponse;
const OWNER_PASSWORD = 'owner-secret-passphrase-71';
const AGENT_PASSWORD = 'agent-secret-passphrase-93';

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  e2e = await startE2eSystem('e2esecrets', {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_BSP_SCHEDULE_DELAY: '200',
    // What a production deployment logs: every request line.
    LOG_LEVEL: 'info',
  });
  org = await e2e.createOrganization('Quiet Co', 'standard', {
    owner_email: 'owner@quiet.example',
    owner_password: OWNER_PASSWORD,
  });
});

afterAll(async () => {
  await e2e?.stop();
  await otlp?.close();
});

test('when the provider verifies and calls the inbound webhook URL, the organization sends, and its users sign in, invite and work with their session, then no log line and no span carries a token, password or secret', async () => {
  const { channel } = org;
  const inboundToken = new URL(channel.inbound_url).pathname.split('/').pop()!;

  const check = `${channel.inbound_url}?hub.mode=subscribe&hub.challenge=77&hub.verify_token=${channel.verify_token}`;
  const verified = await fetch(check);
  expect(verified.status).toBe(200);
  const body = '{"object":"whatsapp_business_account","entry":[]}';
  const signature = 'sha256=' + createHmac('sha256', channel.app_secret).update(body).digest('hex');
  for (let call = 0; call < 3; call += 1) {
    const posted = await fetch(channel.inbound_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    expect(posted.status).toBe(200);
  }
  // A send: the provider's status webhooks come back on the same path.
  const sent = await e2e.api(org.token).post('sendMessageToPhoneNumber', {
    phone: '393471234567',
    message: 'Hello',
  });
  expect(sent.status).toBe(200);

  // The console: sign-in, a proxied call and a write with the session, an invitation accepted.
  const owner = await signIn(e2e.gateway, 'owner@quiet.example', OWNER_PASSWORD);
  expect((await callGateway(e2e.gateway, 'GET', '/api/svc/getContacts', owner)).status).toBe(200);
  const added = await callGateway(e2e.gateway, 'POST', '/api/svc/addAgent', owner, {
    name: 'Agent',
    email: 'agent@quiet.example',
  });
  expect(added.status).toBe(201);
  const invitation = invitationOf(added.body.invitation_url as string);
  const accepted = await callGateway(
    e2e.gateway,
    'POST',
    '/auth/accept-invitation',
    {},
    {
      invitation,
      password: AGENT_PASSWORD,
    },
  );
  expect(accepted.status).toBe(200);
  const agentSession = sessionCookieOf(accepted.headers.get('set-cookie')).secret;
  const wrong = await callGateway(
    e2e.gateway,
    'POST',
    '/auth/sign-in',
    {},
    {
      email: 'owner@quiet.example',
      password: `${OWNER_PASSWORD}-typo`,
    },
  );
  expect(wrong.status).toBe(401);

  // The request lines and spans of inbound's door and of messaging's lookup by token were written.
  await until(
    async () =>
      e2e.output.some(
        (line) => line.startsWith('inbound') && line.includes('/webhook/svc/receive/'),
      ) &&
      e2e.output.some(
        (line) => line.startsWith('messaging') && line.includes('/by-inbound-token/'),
      ) &&
      e2e.output.some(
        (line) => line.startsWith('gateway') && line.includes('/auth/accept-invitation'),
      ) &&
      otlp.spans.some(
        (span) =>
          span.service === 'inbound' &&
          String(span.attributes['url.path']).startsWith('/webhook/svc/receive/'),
      )
        ? true
        : undefined,
    'the request lines and spans of the inbound path',
  );
  const logs = e2e.output.join('\n');
  const spans = JSON.stringify(otlp.spans);
  const secrets = {
    inboundToken,
    verifyToken: channel.verify_token,
    appSecret: channel.app_secret,
    apiToken: org.token,
    ownerPassword: OWNER_PASSWORD,
    agentPassword: AGENT_PASSWORD,
    sessionCookie: owner.secret,
    agentSessionCookie: agentSession,
    csrfToken: owner.csrf,
    invitation,
  };
  for (const [name, value] of Object.entries(secrets)) {
    expect({ name, inLogs: logs.includes(value), inSpans: spans.includes(value) }).toEqual({
      name,
      inLogs: false,
      inSpans: false,
    });
  }
});
