import { ERROR_CODES_HREF } from '../error-catalog';
import { mintWamid } from '../mint-ids';
import type { InboundInput, InboundType } from './inbound-input';

export interface StoredMediaRef {
  id: string;
  sha256: string;
  url: string;
}

export interface InboundBuildContext {
  businessWaId: string;
  /** The business's last message to this user: the default `context.id` of replies and reactions. */
  lastOutgoingWamid: string | undefined;
  nowMs: number;
  storeMedia(mimeType: string, filename?: string, data?: Buffer): StoredMediaRef;
}

const DEFAULT_MIME: Record<string, string> = {
  image: 'image/jpeg',
  video: 'video/mp4',
  audio: 'audio/ogg; codecs=opus',
  sticker: 'image/webp',
  document: 'application/pdf',
};

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'sticker', 'document']);

/** One entry of `value.messages` (reference §3.3), in the shape and key order Meta uses. */
export function buildInboundMessage(
  input: InboundInput,
  type: InboundType,
  ctx: InboundBuildContext,
): Record<string, unknown> {
  const from = input.from.replace(/\D/g, '');
  const repliedTo = (): string => ctx.lastOutgoingWamid ?? mintWamid(from);
  const needsContext = type === 'interactive' || type === 'button';
  const context =
    input.context || needsContext
      ? { from: ctx.businessWaId, id: repliedTo(), ...input.context }
      : undefined;
  const message: Record<string, unknown> = {
    ...(context && { context }),
    from,
    id: input.id ?? mintWamid(from, 'incoming'),
    timestamp: String(input.timestamp ?? Math.floor(ctx.nowMs / 1000)),
    type,
  };
  if (MEDIA_TYPES.has(type)) {
    message[type] = buildMedia(input, type as keyof typeof DEFAULT_MIME, ctx);
  } else {
    Object.assign(message, buildOther(input, type, repliedTo));
  }
  if (input.referral) message.referral = input.referral;
  return message;
}

function buildMedia(
  input: InboundInput,
  type: keyof typeof DEFAULT_MIME,
  ctx: InboundBuildContext,
): Record<string, unknown> {
  const given = (input[type as 'image'] ?? {}) as Record<string, unknown>;
  const {
    caption,
    mime_type: mimeType,
    filename,
    voice,
    animated,
    data_base64: dataBase64,
    size_bytes: sizeBytes,
    ...rest
  } = given;
  const mime = typeof mimeType === 'string' ? mimeType : DEFAULT_MIME[type]!;
  const data =
    typeof dataBase64 === 'string'
      ? Buffer.from(dataBase64, 'base64')
      : typeof sizeBytes === 'number'
        ? Buffer.alloc(sizeBytes, 0x5a)
        : undefined;
  const stored = ctx.storeMedia(mime, typeof filename === 'string' ? filename : undefined, data);
  return {
    ...(caption !== undefined && { caption }),
    ...(type === 'document' && { filename: filename ?? 'document.pdf' }),
    mime_type: mime,
    sha256: stored.sha256,
    id: stored.id,
    url: stored.url,
    ...(type === 'audio' && { voice: voice ?? false }),
    ...(type === 'sticker' && { animated: animated ?? false }),
    ...rest,
  };
}

function buildOther(
  input: InboundInput,
  type: InboundType,
  repliedTo: () => string,
): Record<string, unknown> {
  switch (type) {
    case 'text':
      return {
        text: typeof input.text === 'string' ? { body: input.text } : (input.text ?? { body: '' }),
      };
    case 'interactive':
      if (input.interactive) return { interactive: input.interactive };
      if (input.list_reply)
        return { interactive: { type: 'list_reply', list_reply: input.list_reply } };
      return {
        interactive: {
          type: 'button_reply',
          button_reply: input.button_reply ?? { id: 'button-1', title: 'Yes' },
        },
      };
    case 'button':
      return { button: input.button ?? { payload: 'Yes', text: 'Yes' } };
    case 'reaction':
      return {
        reaction: {
          message_id: input.reaction?.message_id ?? repliedTo(),
          ...(input.reaction?.emoji !== undefined && { emoji: input.reaction.emoji }),
        },
      };
    case 'location':
      return { location: input.location ?? { latitude: 0, longitude: 0 } };
    case 'contacts':
      return {
        contacts: input.contacts ?? [
          { name: { formatted_name: 'Test Contact', first_name: 'Test' }, phones: [] },
        ],
      };
    case 'system':
      return {
        system: input.system ?? {
          body: 'User changed number',
          wa_id: input.from.replace(/\D/g, ''),
          type: 'user_changed_number',
        },
      };
    case 'unsupported':
      return {
        unsupported: { type: input.unsupported?.type ?? 'unknown' },
        errors: [
          {
            code: 131051,
            title: 'Message type unknown',
            message: 'Message type unknown',
            error_data: { details: 'Message type is currently not supported.' },
            href: ERROR_CODES_HREF,
          },
        ],
      };
    default:
      return {};
  }
}
