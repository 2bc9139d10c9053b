import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import {
  createSecretBox,
  encryptionKeySchema,
  secretEncryptionKey,
  secretKeyRing,
  secretKeysSchema,
  singleKeySecretBox,
} from '../../src/secret-box';

const purpose = { salt: 'switchboard-test', info: 'test-secret-encryption' };
const internalSecret = 'internal-secret-of-the-cluster';

/** How values were sealed before key ids existed. */
function sealWithoutKeyId(secret: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), data].map((part) => part.toString('base64'))].join(
    '.',
  );
}

const keyEntry = (kid: string) => `${kid}:${randomBytes(32).toString('base64')}`;
const ringOf = (keys: string | undefined, legacyKey?: string) =>
  createSecretBox(
    secretKeyRing({ keys: secretKeysSchema.parse(keys), internalSecret, purpose, legacyKey }),
  );

describe('secret box (AES-256-GCM at rest)', () => {
  test('when a secret is sealed and opened, then it comes back; the sealed form names its key and does not contain it', () => {
    const box = singleKeySecretBox(randomBytes(32));
    const secret = 'sk-live-0123456789abcdefghijklmnopqrstuvwxyz';
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^v2\.k\.[^.]+\.[^.]+\.[^.]+$/);
    expect(sealed).not.toContain('0123456789abcdef');
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(secret);
    expect(box.isCurrent(sealed)).toBe(true);
  });

  test('when the sealed form is altered or the key is another, then opening fails', () => {
    const box = singleKeySecretBox(randomBytes(32));
    const sealed = box.seal('whsec_abcdefghijklmnopqrstuvwxyz');
    const parts = sealed.split('.');
    const data = Buffer.from(parts[4]!, 'base64');
    data[0] = data[0]! ^ 1;
    expect(() => box.open([...parts.slice(0, 4), data.toString('base64')].join('.'))).toThrow();
    expect(() => singleKeySecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('plain')).toThrow('not a sealed secret');
  });

  test('when a key is not 32 bytes, then no box is made', () => {
    expect(() => singleKeySecretBox(randomBytes(16))).toThrow(RangeError);
  });

  test('when the keys rotate, then values sealed with an older key still open, new values use the new key, and digests under every key find a value', () => {
    const older = keyEntry('2026a');
    const before = ringOf(older);
    const sealedBefore = before.seal('EAAsecret-access-token');
    const digestBefore = before.digest('inbound-token');

    const after = ringOf(`${keyEntry('2026b')},${older}`);
    expect(after.open(sealedBefore)).toBe('EAAsecret-access-token');
    expect(after.isCurrent(sealedBefore)).toBe(false);
    const resealed = after.seal(after.open(sealedBefore));
    expect(resealed.startsWith('v2.2026b.')).toBe(true);
    expect(after.isCurrent(resealed)).toBe(true);
    expect(after.currentPrefix).toBe('v2.2026b.');
    expect(after.digests('inbound-token')).toContain(digestBefore);
    expect(after.digest('inbound-token')).not.toBe(digestBefore);
    expect(after.digest('inbound-token')).toBe(after.digests('inbound-token')[0]);

    // Once the older key is dropped, what it sealed no longer opens.
    expect(() => ringOf(keyEntry('2026b')).open(sealedBefore)).toThrow();
  });

  test('when keys are first configured, then what the key derived from the internal secret sealed still opens, and new values use the configured key', () => {
    const unconfigured = ringOf(undefined);
    const sealed = unconfigured.seal('app-secret');
    expect(sealed.startsWith('v2.internal.')).toBe(true);
    const configured = ringOf(keyEntry('one'));
    expect(configured.open(sealed)).toBe('app-secret');
    expect(configured.isCurrent(sealed)).toBe(false);
    expect(configured.seal('x').startsWith('v2.one.')).toBe(true);
  });

  test('when a value was sealed before key ids existed, then it opens with the derived key, or with the former single key when one was configured', () => {
    const derived = secretEncryptionKey(undefined, internalSecret, purpose);
    const oldSealed = sealWithoutKeyId('whsec_old', derived);
    expect(ringOf(undefined).open(oldSealed)).toBe('whsec_old');
    expect(ringOf(keyEntry('new')).open(oldSealed)).toBe('whsec_old');
    expect(ringOf(undefined).isCurrent(oldSealed)).toBe(false);

    const formerKey = randomBytes(32);
    const former = formerKey.toString('base64');
    const sealedWithFormer = sealWithoutKeyId('sk-old', formerKey);
    expect(ringOf(undefined, former).open(sealedWithFormer)).toBe('sk-old');
    // A former single key keeps sealing until keys are configured.
    expect(ringOf(undefined, former).seal('x').startsWith('v2.legacy.')).toBe(true);
    expect(ringOf(keyEntry('new'), former).open(sealedWithFormer)).toBe('sk-old');
  });

  test('when no key is configured, then one is derived from the internal secret per purpose, the same every time', () => {
    const derived = secretEncryptionKey(undefined, internalSecret, purpose);
    expect(derived).toHaveLength(32);
    expect(derived).toEqual(
      Buffer.from(hkdfSync('sha256', internalSecret, purpose.salt, purpose.info, 32)),
    );
    expect(
      secretEncryptionKey(undefined, internalSecret, { ...purpose, info: 'other' }),
    ).not.toEqual(derived);
    const configured = randomBytes(32);
    expect(secretEncryptionKey(configured.toString('base64'), 'x', purpose)).toEqual(configured);
  });

  test('when configured keys are malformed, then the config is refused', () => {
    expect(encryptionKeySchema.safeParse(randomBytes(32).toString('base64')).success).toBe(true);
    expect(encryptionKeySchema.safeParse(undefined).success).toBe(true);
    expect(encryptionKeySchema.safeParse(randomBytes(16).toString('base64')).success).toBe(false);
    expect(secretKeysSchema.parse(undefined)).toBeUndefined();
    expect(secretKeysSchema.parse(`${keyEntry('a')},${keyEntry('b')}`)).toHaveLength(2);
    for (const bad of [
      `a:${randomBytes(16).toString('base64')}`,
      randomBytes(32).toString('base64'),
      keyEntry('internal'),
      keyEntry('legacy'),
      `${keyEntry('a')},${keyEntry('a')}`,
      keyEntry('has space'),
    ]) {
      expect(secretKeysSchema.safeParse(bad).success).toBe(false);
    }
  });
});
