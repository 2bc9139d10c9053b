import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import {
  FAST_ENV,
  createWebhook,
  newCompanyId,
  startHarness,
  type Harness,
} from '../support/harness';
import { signatureMatches, startReceiver, type Receiver } from '../support/receiver';

jest.setTimeout(30_000);

let harness: Harness;
let receiver: Receiver;

beforeAll(async () => {
  harness = await startHarness('wh_keys', FAST_ENV);
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await harness?.stop();
});

/** How webhooks sealed a secret before key ids existed: `v1.`, key derived from the internal secret. */
function sealAsBefore(secret: string, internalSecret: string): string {
  const key = Buffer.from(
    hkdfSync('sha256', internalSecret, 'switchboard-webhooks', 'webhook-secret-encryption', 32),
  );
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), data].map((part) => part.toString('base64'))].join(
    '.',
  );
}

test('when webhooks restarts with encryption keys listed, then a secret sealed by an earlier version is re-sealed with the first key and deliveries are still signed with the same secret', async () => {
  const companyId = newCompanyId();
  const webhook = await createWebhook(harness, companyId, {
    url: receiver.url,
    events: ['campaign_started'],
  });
  const webhooks = harness.service.db.collection('webhooks');
  await webhooks.updateOne(
    { _id: webhook.id as never },
    { $set: { secret_sealed: sealAsBefore(webhook.secret, harness.internalSecret) } },
  );

  await harness.restart({
    ...FAST_ENV,
    SECRET_ENCRYPTION_KEYS: `2026-11:${randomBytes(32).toString('base64')}`,
  });
  const stored = await harness.service.db
    .collection('webhooks')
    .findOne({ _id: webhook.id as never });
  expect(stored?.secret_sealed).toMatch(/^v2\.2026-11\./);

  const answer = await harness.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
    method: 'POST',
    body: { event: 'campaign_started' },
  });
  expect(answer.status).toBe(200);
  const request = receiver.requests.at(-1)!;
  const signature = request.headers['x-webhook-signature'];
  expect(signatureMatches(webhook.secret, request.body, String(signature))).toBe(true);
});
