/** Supported media types and size limits (reference §1.2): what upload accepts and sends may use. */
export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';

const MB = 1024 * 1024;

interface MediaRule {
  kind: MediaKind;
  maxBytes: number;
  extension: string;
}

const RULES: Record<string, MediaRule> = {
  'image/jpeg': { kind: 'image', maxBytes: 5 * MB, extension: 'jpg' },
  'image/png': { kind: 'image', maxBytes: 5 * MB, extension: 'png' },
  'image/webp': { kind: 'sticker', maxBytes: 500 * 1024, extension: 'webp' },
  'video/mp4': { kind: 'video', maxBytes: 16 * MB, extension: 'mp4' },
  'video/3gpp': { kind: 'video', maxBytes: 16 * MB, extension: '3gp' },
  'audio/aac': { kind: 'audio', maxBytes: 16 * MB, extension: 'aac' },
  'audio/amr': { kind: 'audio', maxBytes: 16 * MB, extension: 'amr' },
  'audio/mpeg': { kind: 'audio', maxBytes: 16 * MB, extension: 'mp3' },
  'audio/mp4': { kind: 'audio', maxBytes: 16 * MB, extension: 'm4a' },
  'audio/ogg': { kind: 'audio', maxBytes: 16 * MB, extension: 'ogg' },
  'text/plain': { kind: 'document', maxBytes: 100 * MB, extension: 'txt' },
  'application/pdf': { kind: 'document', maxBytes: 100 * MB, extension: 'pdf' },
  'application/msword': { kind: 'document', maxBytes: 100 * MB, extension: 'doc' },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
    kind: 'document',
    maxBytes: 100 * MB,
    extension: 'docx',
  },
  'application/vnd.ms-excel': { kind: 'document', maxBytes: 100 * MB, extension: 'xls' },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
    kind: 'document',
    maxBytes: 100 * MB,
    extension: 'xlsx',
  },
  'application/vnd.ms-powerpoint': { kind: 'document', maxBytes: 100 * MB, extension: 'ppt' },
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': {
    kind: 'document',
    maxBytes: 100 * MB,
    extension: 'pptx',
  },
};

export const MAX_UPLOAD_BYTES = 100 * MB;

/** `audio/ogg; codecs=opus` → `audio/ogg`. */
export const baseMimeType = (mimeType: string): string =>
  mimeType.split(';')[0]!.trim().toLowerCase();

export function mediaRuleFor(mimeType: string): MediaRule | undefined {
  return RULES[baseMimeType(mimeType)];
}

export const SUPPORTED_MIME_TYPES = Object.keys(RULES);

/** Whether uploaded media of this MIME type may be sent as a message of `type`. */
export function isUsableAs(mimeType: string, type: string): boolean {
  const rule = mediaRuleFor(mimeType);
  if (!rule) return false;
  if (type === 'document') return true;
  if (type === 'image') return rule.kind === 'image';
  return rule.kind === type;
}
