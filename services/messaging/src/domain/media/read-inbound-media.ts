import { AppError } from '@switchboard/service-kit';
import type { InboundMedia, InboundMediaStore } from '../../data-access/inbound-media-store';

/**
 * The organization's stored file, or not_found: for another organization's id (never revealing
 * that it exists), a message without a file, and a file not or no longer kept (its status says
 * why, in the message shown by getMessages).
 */
export async function findServableMedia(
  media: InboundMediaStore,
  company_id: number,
  id: number,
): Promise<InboundMedia> {
  const found = await media.find(id);
  if (!found || found.company_id !== company_id) {
    throw new AppError('not_found', `media_id: no media ${id}`);
  }
  if (found.status !== 'available') {
    throw new AppError('not_found', `media_id: media ${id} is not available (${found.status})`);
  }
  return found;
}

/** The file's bytes chunk by chunk, in order; a missing chunk ends the file early (and says so). */
export async function* mediaBytes(
  media: InboundMediaStore,
  file: Pick<InboundMedia, 'id' | 'chunks'>,
): AsyncGenerator<Buffer> {
  for (let n = 0; n < file.chunks; n++) {
    const chunk = await media.readChunk(file.id, n);
    if (!chunk) throw new Error(`media ${file.id}: chunk ${n} is missing`);
    yield chunk;
  }
}

/** `getMedia` as the route calls it: the organization's file, then its bytes. */
export interface MediaReader {
  find(company_id: number, id: number): Promise<InboundMedia>;
  bytes(file: Pick<InboundMedia, 'id' | 'chunks'>): AsyncGenerator<Buffer>;
}

export function createMediaReader(media: InboundMediaStore): MediaReader {
  return {
    find: (company_id, id) => findServableMedia(media, company_id, id),
    bytes: (file) => mediaBytes(media, file),
  };
}
