import { createHash, createHmac } from 'node:crypto';
import type { SimulatorState } from '../../state/simulator-state';
import type { MediaRecord } from '../../state/records';
import { mintNumericId } from '../mint-ids';
import { mediaRuleFor } from './media-rules';

export function storeMedia(
  state: SimulatorState,
  input: { phoneNumberId: string; mimeType: string; data: Buffer; filename?: string; now: number },
): MediaRecord {
  const record: MediaRecord = {
    id: mintNumericId(),
    phone_number_id: input.phoneNumberId,
    mime_type: input.mimeType,
    sha256: createHash('sha256').update(input.data).digest('hex'),
    file_size: input.data.length,
    data: input.data,
    ...(input.filename !== undefined && { filename: input.filename }),
    created_at: input.now,
  };
  state.media.set(record.id, record);
  return record;
}

/**
 * A download URL shaped like Meta's lookaside URL, valid until `expiresAt` and signed with the
 * simulator's own secret; downloading it still needs the bearer token, as with Meta.
 */
export function mediaDownloadUrl(
  baseUrl: string,
  record: MediaRecord,
  expiresAt: number,
  secret: string,
): string {
  const url = new URL('/whatsapp_business/attachments/', baseUrl);
  url.searchParams.set('mid', record.id);
  url.searchParams.set('ext', String(Math.floor(expiresAt / 1000)));
  url.searchParams.set('hash', urlHash(record.id, expiresAt, secret));
  url.searchParams.set('type', mediaRuleFor(record.mime_type)?.extension ?? 'bin');
  return url.toString();
}

/** The media a download URL points to, if the URL is genuine and not expired. */
export function checkDownloadUrl(
  query: Record<string, unknown>,
  secret: string,
  now: number,
): string | undefined {
  const { mid, ext, hash } = query;
  if (typeof mid !== 'string' || typeof ext !== 'string' || typeof hash !== 'string')
    return undefined;
  const expiresAt = Number(ext) * 1000;
  if (!Number.isFinite(expiresAt) || expiresAt < now) return undefined;
  return urlHash(mid, expiresAt, secret) === hash ? mid : undefined;
}

function urlHash(id: string, expiresAt: number, secret: string): string {
  return createHmac('sha256', secret)
    .update(`${id}:${Math.floor(expiresAt / 1000)}`)
    .digest('base64url');
}
