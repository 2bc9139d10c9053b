import { randomBytes } from 'node:crypto';
import {
  createSecretBox,
  generateWebhookSecret,
  lastFourOf,
  maskSecret,
  secretEncryptionKey,
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

  test('when a secret is sealed and opened, then it comes back; the sealed form does not contain it', () => {
    const box = createSecretBox(randomBytes(32));
    const secret = generateWebhookSecret();
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(secret);
  });

  test('when the sealed form is altered or the key is another, then opening fails', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal(generateWebhookSecret());
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3]!, 'base64');
    data[0] = data[0]! ^ 1;
    expect(() => box.open([...parts.slice(0, 3), data.toString('base64')].join('.'))).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('plain')).toThrow('not a sealed webhook secret');
  });

  test('when no key is configured, then one is derived from the internal secret, the same every time', () => {
    const derived = secretEncryptionKey(undefined, 'internal-secret-of-the-cluster');
    expect(derived).toHaveLength(32);
    expect(secretEncryptionKey(undefined, 'internal-secret-of-the-cluster')).toEqual(derived);
    const configured = randomBytes(32);
    expect(secretEncryptionKey(configured.toString('base64'), 'x')).toEqual(configured);
  });
});
