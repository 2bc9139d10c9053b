// No credential reaches a log line or a span: the inbound token in the provider's webhook path
// (and messaging's lookup by it), the verify token in the provider's check, the API token.
import { createHmac } from 'node:crypto';
import type { CreateOrganizationResponse } from '@switchboard/contracts';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let otlp: OtlpReceiver;
let org: CreateOrganizationResponse;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  e2e = await startE2eSystem('e2esecrets', {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_BSP_SCHEDULE_DELAY: '200',
    // What a production deployment logs: every request line.
    LOG_LEVEL: 'info',
  });
  org = await e2e.createOrganization('Quiet Co', 'standard');
});

afterAll(async () => {
  await e2e?.stop();
  await otlp?.close();
});

test('when the provider verifies and calls the inbound webhook URL and the organization sends, then no log line and no span carries a token or secret', async () => {
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

  // The request lines and spans of inbound's door and of messaging's lookup by token were written.
  await until(
    async () =>
      e2e.output.some(
        (line) => line.startsWith('inbound') && line.includes('/webhook/svc/receive/'),
      ) &&
      e2e.output.some(
        (line) => line.startsWith('messaging') && line.includes('/by-inbound-token/'),
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
  };
  for (const [name, value] of Object.entries(secrets)) {
    expect({ name, inLogs: logs.includes(value), inSpans: spans.includes(value) }).toEqual({
      name,
      inLogs: false,
      inSpans: false,
    });
  }
});
