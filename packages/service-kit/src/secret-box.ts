import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';

const VERSION = 'v1';
const KEY_BYTES = 32;

/**
 * Secrets we must use later in the clear (webhook signing secrets, the AI bot's API keys) cannot
 * be hashed; they are encrypted at rest (AES-256-GCM) so that a copy of the database alone does
 * not give them away. Sealed form: `v1.<iv>.<tag>.<ciphertext>`, each part base64.
 */
export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
}

/** A configured encryption key: 32 bytes, base64; optional (see {@link secretEncryptionKey}). */
export const encryptionKeySchema = z
  .string()
  .optional()
  .refine((value) => value === undefined || Buffer.from(value, 'base64').length === KEY_BYTES, {
    message: 'must be 32 bytes, base64-encoded',
  });

/**
 * The configured key, or one derived (HKDF-SHA256) from the internal secret when none is
 * configured. `purpose` keeps the keys of different uses apart; changing it makes what was
 * sealed before unreadable.
 */
export function secretEncryptionKey(
  configured: string | undefined,
  internalSecret: string,
  purpose: { salt: string; info: string },
): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  return Buffer.from(hkdfSync('sha256', internalSecret, purpose.salt, purpose.info, KEY_BYTES));
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new RangeError('the secret encryption key must be 32 bytes');
  // Callers open the same secrets again and again (every webhook attempt signs): keep them.
  const opened = new Map<string, string>();
  return {
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, ...[iv, tag, sealed].map((part) => part.toString('base64'))].join('.');
    },
    open(sealed) {
      const known = opened.get(sealed);
      if (known !== undefined) return known;
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || !data) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
      const secret = plain.toString('utf8');
      if (opened.size >= 10_000) opened.clear();
      opened.set(sealed, secret);
      return secret;
    },
  };
}
