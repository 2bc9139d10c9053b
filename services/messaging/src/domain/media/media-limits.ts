import type { InboundMediaType } from '@switchboard/contracts';

const MB = 1024 * 1024;

/**
 * The largest file of each kind that is fetched and kept: the sizes Meta accepts for each kind
 * (images 5 MB, audio and video 16 MB, documents 100 MB, stickers 500 KB for animated ones), so
 * nothing a contact can legitimately send is refused, and nothing larger is ever read whole.
 * `capBytes` lowers every limit (a deployment that keeps files in a small database).
 */
const PROVIDER_LIMITS: Record<InboundMediaType, number> = {
  image: 5 * MB,
  audio: 16 * MB,
  video: 16 * MB,
  document: 100 * MB,
  sticker: 500 * 1024,
};

export const mediaLimitOf = (type: InboundMediaType, capBytes: number): number =>
  Math.min(PROVIDER_LIMITS[type], capBytes);
