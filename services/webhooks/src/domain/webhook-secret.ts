import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '@switchboard/contracts';

const SECRET_BYTES = 32;

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** What reads show after creation: the prefix, an ellipsis and the last four characters. */
export function maskSecret(lastFour: string): string {
  return `${WEBHOOK_SECRET_PREFIX}…${lastFour}`;
}

export const lastFourOf = (secret: string): string => secret.slice(-4);

const VERSION = 'v1';

/**
 * Secrets must stay usable for signing, so they cannot be hashed; they are encrypted at rest
 * (AES-256-GCM) so that a copy of the database alone does not let anyone forge our signatures.
 */
export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
}

/** The configured key, or one derived from the internal secret when none is configured. */
export function secretEncryptionKey(
  configured: string | undefined,
  internalSecret: string,
): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  return Buffer.from(
    hkdfSync('sha256', internalSecret, 'switchboard-webhooks', 'webhook-secret-encryption', 32),
  );
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new RangeError('the secret encryption key must be 32 bytes');
  // Every attempt signs: opened secrets are kept (the process holds them to sign anyway).
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
      if (version !== VERSION || !iv || !tag || !data) {
        throw new Error('not a sealed webhook secret');
      }
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
