// A contact's photo, end to end with every service as its own process: the simulator posts the
// inbound image, messaging fetches it from the simulator, the customer's endpoint gets a signed
// message_received describing it, and the file comes back through the gateway with the token.
import { createHash } from 'node:crypto';
import { WebhookEnvelopeSchema, WebhookResponseSchema } from '@switchboard/contracts';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  e2e = await startE2eSystem('e2emedia', { ALLOW_PRIVATE_URLS: 'true' });
});

afterAll(async () => {
  await e2e?.stop();
  await receiver?.close();
});

test('when a contact sends an image, then the customer webhook gets message_received with its descriptor, the gateway serves the same bytes to the organization, and another organization gets 404', async () => {
  const org = await e2e.createOrganization('Photo Shop', 'standard');
  const stranger = await e2e.createOrganization('Stranger Co', 'standard');
  const hook = await fetch(`${e2e.gateway}/developer/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token: org.token,
      name: 'Inbox',
      url: receiver.url,
      events: ['message_received'],
    }),
  });
  const { webhook } = WebhookResponseSchema.parse(await jsonBody(hook));
  receiver.trust(webhook.secret);

  // A PNG's signature and some bytes that are not text, so nothing on the way may re-encode them.
  const image = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256)),
  ]);
  const injected = await jsonBody(
    await fetch(`${e2e.simulator}/sim/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        phone_number_id: org.channel.phone_number_id,
        from: '393471239876',
        image: {
          caption: 'The broken part',
          mime_type: 'image/png',
          data_base64: image.toString('base64'),
        },
      }),
    }),
  );

  const delivered = await until(
    async () =>
      receiver.requests.find(
        (request) => request.verified && request.body.toString().includes(injected.wamid),
      ),
    'message_received at the customer endpoint',
  );
  const envelope = WebhookEnvelopeSchema.parse(JSON.parse(delivered.body.toString()));
  if (envelope.event !== 'message_received') throw new Error(`got ${envelope.event}`);
  expect(envelope.data).toMatchObject({
    message: 'The broken part',
    message_type: 'image',
    phone: '393471239876',
    media: {
      type: 'image',
      mime_type: 'image/png',
      size: image.length,
      status: 'available',
      sha256: createHash('sha256').update(image).digest('hex'),
    },
  });
  const url = envelope.data.media!.url!;
  expect(url.startsWith(`${e2e.gateway}/api/svc/getMedia?`)).toBe(true);

  const mine = await fetch(url, { headers: { authorization: `Bearer ${org.token}` } });
  expect(mine.status).toBe(200);
  expect(mine.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(await mine.arrayBuffer()).equals(image)).toBe(true);

  const withQueryToken = await fetch(`${url}&token=${org.token}`);
  expect(withQueryToken.status).toBe(200);

  const theirs = await fetch(url, { headers: { authorization: `Bearer ${stranger.token}` } });
  expect(theirs.status).toBe(404);
  expect(await jsonBody(theirs)).toMatchObject({ status: 'error', code: 'not_found' });

  const nobody = await fetch(url);
  expect(nobody.status).toBe(401);
});
