import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { WEBHOOK_HEADERS, WEBHOOK_SECRET_PREFIX } from '@switchboard/contracts';

interface SigningKeys {
  /** The whole `whsec_…` string as UTF-8. */
  body: KeyObject;
  /** The base64-decoded part after `whsec_`. */
  standard: KeyObject;
}

// An HMAC keyed with a Buffer prepares the key again on every call, which costs several times
// the hash of a small body; prepared keys are kept per secret (a handful of webhooks sign most).
const preparedKeys = new Map<string, SigningKeys>();

function keysFor(secret: string): SigningKeys {
  let keys = preparedKeys.get(secret);
  if (!keys) {
    keys = {
      body: createSecretKey(Buffer.from(secret, 'utf8')),
      standard: createSecretKey(Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64')),
    };
    if (preparedKeys.size >= 10_000) preparedKeys.clear();
    preparedKeys.set(secret, keys);
  }
  return keys;
}

/**
 * The published webhook signature: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret exactly as the
 * customer sees it (the whole `whsec_…` string as UTF-8), so a receiver that pastes it works.
 */
export function bodySignature(secret: string, body: Buffer): string {
  return createHmac('sha256', keysFor(secret).body).update(body).digest('hex');
}

/**
 * Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the
 * base64-decoded part after `whsec_`. The timestamp lets receivers refuse replays.
 */
export function standardSignature(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: Buffer,
): string {
  const mac = createHmac('sha256', keysFor(secret).standard)
    .update(`${messageId}.${timestampSeconds}.`)
    .update(body)
    .digest('base64');
  return `v1,${mac}`;
}

export interface SignedRequest {
  secret: string;
  /** The event id: the same for every attempt and every redelivery, for receivers' dedup. */
  messageId: string;
  event: string;
  body: Buffer;
  now: Date;
}

export const USER_AGENT = 'Switchboard-Webhooks/1.0';

/** Every header of one attempt; only the timestamp and what it signs change between attempts. */
export function deliveryHeaders(request: SignedRequest): Record<string, string> {
  const timestamp = Math.floor(request.now.getTime() / 1000);
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    [WEBHOOK_HEADERS.event]: request.event,
    [WEBHOOK_HEADERS.signature]: bodySignature(request.secret, request.body),
    [WEBHOOK_HEADERS.id]: request.messageId,
    [WEBHOOK_HEADERS.standardId]: request.messageId,
    [WEBHOOK_HEADERS.standardTimestamp]: String(timestamp),
    [WEBHOOK_HEADERS.standardSignature]: standardSignature(
      request.secret,
      request.messageId,
      timestamp,
      request.body,
    ),
  };
}
