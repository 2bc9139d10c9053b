import { randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '@switchboard/contracts';
import { secretEncryptionKey } from '@switchboard/service-kit';

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

/** The key that seals webhook secrets; the derivation stays what it was, so stored secrets open. */
export function webhookSecretKey(configured: string | undefined, internalSecret: string): Buffer {
  return secretEncryptionKey(configured, internalSecret, {
    salt: 'switchboard-webhooks',
    info: 'webhook-secret-encryption',
  });
}
