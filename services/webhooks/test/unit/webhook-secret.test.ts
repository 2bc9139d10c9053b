import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { createSecretBox, secretKeyRing } from '@switchboard/service-kit';
import {
  generateWebhookSecret,
  lastFourOf,
  maskSecret,
  WEBHOOK_SECRET_PURPOSE,
} from '../../src/domain/webhook-secret';

describe('webhook secrets', () => {
  test('when a secret is generated, then it is whsec_ and the base64 of 32 random bytes, never the same twice', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  test('when a secret is shown later, then only the prefix and the last four characters appear', () => {
    const secret = 'whsec_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG=';
    expect(maskSecret(lastFourOf(secret))).toBe('whsec_…EFG=');
  });

  test("when a webhook secret was sealed before key ids existed, with the key webhooks always derived, then the webhooks' box still opens it", () => {
    const internalSecret = 'internal-secret-of-the-cluster';
    // The derivation webhooks always used, and the sealed form of that time (`v1.`).
    const derived = hkdfSync(
      'sha256',
      internalSecret,
      'switchboard-webhooks',
      'webhook-secret-encryption',
      32,
    );
    const secret = generateWebhookSecret();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(derived), iv);
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const sealed = ['v1', iv, cipher.getAuthTag(), data]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
      .join('.');
    const box = createSecretBox(
      secretKeyRing({ keys: undefined, internalSecret, purpose: WEBHOOK_SECRET_PURPOSE }),
    );
    expect(box.open(sealed)).toBe(secret);
  });
});
