import { randomBytes } from 'node:crypto';
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

/** What the webhooks' keys are narrowed to; stays what it was, so stored secrets open. */
export const WEBHOOK_SECRET_PURPOSE = {
  salt: 'switchboard-webhooks',
  info: 'webhook-secret-encryption',
};
