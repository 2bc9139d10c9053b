import { randomBytes } from 'node:crypto';
import { createSecretBox, secretEncryptionKey } from '@switchboard/service-kit';
import {
  generateWebhookSecret,
  lastFourOf,
  maskSecret,
  webhookSecretKey,
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

  test('when a webhook secret is sealed with the key derived from the internal secret, then it opens with the key webhooks always derived', () => {
    const derived = webhookSecretKey(undefined, 'internal-secret-of-the-cluster');
    // The derivation webhooks used before the box moved to the service kit: stored secrets still open.
    expect(derived).toEqual(
      secretEncryptionKey(undefined, 'internal-secret-of-the-cluster', {
        salt: 'switchboard-webhooks',
        info: 'webhook-secret-encryption',
      }),
    );
    const secret = generateWebhookSecret();
    const sealed = createSecretBox(derived).seal(secret);
    expect(
      createSecretBox(webhookSecretKey(undefined, 'internal-secret-of-the-cluster')).open(sealed),
    ).toBe(secret);
    const configured = randomBytes(32);
    expect(webhookSecretKey(configured.toString('base64'), 'x')).toEqual(configured);
  });
});
