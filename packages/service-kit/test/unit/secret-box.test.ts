import { hkdfSync, randomBytes } from 'node:crypto';
import { createSecretBox, encryptionKeySchema, secretEncryptionKey } from '../../src/secret-box';

const purpose = { salt: 'switchboard-test', info: 'test-secret-encryption' };

describe('secret box (AES-256-GCM at rest)', () => {
  test('when a secret is sealed and opened, then it comes back; the sealed form does not contain it', () => {
    const box = createSecretBox(randomBytes(32));
    const secret = 'sk-live-0123456789abcdefghijklmnopqrstuvwxyz';
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^v1\.[^.]+\.[^.]+\.[^.]+$/);
    expect(sealed).not.toContain('0123456789abcdef');
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(secret);
  });

  test('when the sealed form is altered or the key is another, then opening fails', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal('whsec_abcdefghijklmnopqrstuvwxyz');
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3]!, 'base64');
    data[0] = data[0]! ^ 1;
    expect(() => box.open([...parts.slice(0, 3), data.toString('base64')].join('.'))).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('plain')).toThrow('not a sealed secret');
  });

  test('when the key is not 32 bytes, then no box is made', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow(RangeError);
  });

  test('when no key is configured, then one is derived from the internal secret per purpose, the same every time', () => {
    const derived = secretEncryptionKey(undefined, 'internal-secret-of-the-cluster', purpose);
    expect(derived).toHaveLength(32);
    expect(derived).toEqual(
      Buffer.from(
        hkdfSync('sha256', 'internal-secret-of-the-cluster', purpose.salt, purpose.info, 32),
      ),
    );
    expect(secretEncryptionKey(undefined, 'internal-secret-of-the-cluster', purpose)).toEqual(
      derived,
    );
    expect(
      secretEncryptionKey(undefined, 'internal-secret-of-the-cluster', {
        ...purpose,
        info: 'other',
      }),
    ).not.toEqual(derived);
    const configured = randomBytes(32);
    expect(secretEncryptionKey(configured.toString('base64'), 'x', purpose)).toEqual(configured);
  });

  test('when a configured key is not 32 bytes of base64, then the config is refused', () => {
    expect(encryptionKeySchema.safeParse(randomBytes(32).toString('base64')).success).toBe(true);
    expect(encryptionKeySchema.safeParse(undefined).success).toBe(true);
    expect(encryptionKeySchema.safeParse(randomBytes(16).toString('base64')).success).toBe(false);
  });
});
