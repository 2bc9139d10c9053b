import type { MediaRecord } from '../../state/records';
import { invalidParameter, invalidValue, missingParameter } from '../graph-error';
import { isUsableAs } from '../media/media-rules';
import type { Json } from './read-params';
import { childPath, readString } from './read-params';

export interface AsyncFailure {
  code: number;
  details?: string;
}

export type FindMedia = (id: string) => MediaRecord | undefined;

const CAPTIONED = new Set(['image', 'video', 'document']);

/**
 * A media object by uploaded `id` or hosted `link` (exactly one). Problems Meta finds only while
 * fetching or transcoding (a media id of the wrong type) come back as an asynchronous failure.
 */
export function validateMediaObject(
  media: Json,
  type: string,
  path: string,
  findMedia: FindMedia,
): AsyncFailure | undefined {
  const id = readString(media, 'id', path);
  const link = readString(media, 'link', path, { max: 2000 });
  if (id !== undefined && link !== undefined) {
    throw invalidValue(`Param ${path} must contain either id or link, not both.`);
  }
  if (id === undefined && link === undefined) {
    throw missingParameter(`The parameter ${path}['id'] or ${path}['link'] is required.`);
  }
  if (CAPTIONED.has(type)) readString(media, 'caption', path, { max: 1024 });
  if (type === 'document') readString(media, 'filename', path, { max: 240 });

  if (link !== undefined) {
    if (!isHttpUrl(link))
      throw invalidValue(`Param ${childPath(path, 'link')} must be a valid URL.`);
    return undefined;
  }
  const record = /^\d+$/.test(id!) ? findMedia(id!) : undefined;
  if (!record) {
    throw invalidParameter(
      `Param ${childPath(path, 'id')} is not a valid whatsapp business account media attachment ID.`,
    );
  }
  if (!isUsableAs(record.mime_type, type)) {
    return {
      code: 131053,
      details: `Media upload error: media ${record.id} of type ${record.mime_type} cannot be sent as ${type}.`,
    };
  }
  return undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
