import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks `X-Hub-Signature-256: sha256=<hex>` over the exact bytes received: the provider signs
 * its own serialization (non-ASCII escaped), which re-serializing parsed JSON would not reproduce.
 */
export function hasValidSignature(
  rawBody: Buffer,
  header: string | undefined,
  appSecret: string,
): boolean {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'));
}
