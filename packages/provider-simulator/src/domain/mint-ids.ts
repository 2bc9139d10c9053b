import { randomBytes, randomInt } from 'node:crypto';

/**
 * Message ids shaped like Meta's: `wamid.` + base64 of a small binary record that holds the
 * user's WhatsApp id and a random hex key (`HBgL…` for an 11-digit number). Outgoing ids use
 * marker 0x11 and an 18-character key, incoming ones 0x12 and a 20-character key, as Meta's do.
 */
export function mintWamid(waId: string, direction: 'outgoing' | 'incoming' = 'outgoing'): string {
  const digits = Buffer.from(waId.replace(/\D/g, '').slice(0, 20), 'ascii');
  const keyLength = direction === 'outgoing' ? 18 : 20;
  const key = Buffer.from(
    randomBytes(keyLength).toString('hex').slice(0, keyLength).toUpperCase(),
    'ascii',
  );
  const record = Buffer.concat([
    Buffer.from([0x1c, 0x18, digits.length]),
    digits,
    Buffer.from([0x15, 0x02, 0x00, direction === 'outgoing' ? 0x11 : 0x12, 0x18, keyLength]),
    key,
    Buffer.from([0x00]),
  ]);
  return `wamid.${record.toString('base64')}`;
}

export const WAMID_PATTERN = /^wamid\.[A-Za-z0-9+/]+={0,2}$/;

/**
 * Numeric string ids like Graph's object ids (media, templates): 16 digits starting with 1, so
 * that they stay below 2^53 where Meta sends them as JSON numbers (`message_template_id`).
 */
export function mintNumericId(): string {
  return `1${Array.from({ length: 15 }, () => randomInt(0, 10)).join('')}`;
}
