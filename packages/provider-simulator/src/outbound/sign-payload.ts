import { createHmac } from 'node:crypto';

/**
 * Meta serializes webhook bodies as ASCII: every non-ASCII UTF-16 unit becomes a lowercase
 * `\uXXXX` escape, so an emoji becomes its surrogate pair. The signature is over that text.
 */
export function escapeNonAscii(text: string): string {
  return text.replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The exact bytes Meta would post for a payload: compact JSON, non-ASCII escaped. */
export function serializeWebhookBody(payload: unknown): string {
  return escapeNonAscii(JSON.stringify(payload));
}

/** `sha256=<64 lowercase hex>`: HMAC-SHA256 of the escaped body, keyed with the app secret. */
export function signPayload(appSecret: string, body: string): string {
  const ascii = escapeNonAscii(body);
  return `sha256=${createHmac('sha256', appSecret).update(ascii, 'utf8').digest('hex')}`;
}
