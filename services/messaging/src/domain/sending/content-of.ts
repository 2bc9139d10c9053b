import type {
  SendContent,
  SendMediaRequest,
  SendMessageRequest,
  SendTemplateRequest,
} from '@switchboard/contracts';
import type { OutboundContent } from './send-types';

const replyToOf = (replyTo: number | undefined) =>
  replyTo === undefined ? {} : { replyTo: { message_id: replyTo } };

/**
 * `sendMessageToPhoneNumber`: the one kind the request names (list, location, contacts,
 * reaction, sticker, audio, reply buttons), else an image with the text as caption, else a text;
 * a reply when it names the message it answers.
 */
export function contentOfMessage(request: Omit<SendMessageRequest, 'phone'>): OutboundContent {
  return { ...kindOfMessage(request), ...replyToOf(request.reply_to) };
}

function kindOfMessage(request: Omit<SendMessageRequest, 'phone'>): OutboundContent {
  const message = request.message ?? '';
  if (request.list) {
    return {
      kind: 'list',
      body: message,
      list: request.list,
      ...(request.header ? { header: request.header } : {}),
      ...(request.footer ? { footer: request.footer } : {}),
    };
  }
  if (request.location) return { kind: 'location', location: request.location };
  if (request.contacts && request.contacts.length > 0) {
    return { kind: 'contacts', cards: request.contacts };
  }
  if (request.reaction) {
    return {
      kind: 'reaction',
      to: { message_id: request.reaction.message_id },
      emoji: request.reaction.emoji,
    };
  }
  if (request.sticker) return { kind: 'media', media: 'sticker', link: request.sticker };
  if (request.audio) return { kind: 'media', media: 'audio', link: request.audio };
  if (request.buttons && request.buttons.length > 0) {
    const header = request.image
      ? ({ type: 'image', link: request.image } as const)
      : request.header
        ? ({ type: 'text', text: request.header } as const)
        : undefined;
    return {
      kind: 'buttons',
      body: message,
      buttons: request.buttons,
      ...(header ? { header } : {}),
      ...(request.footer ? { footer: request.footer } : {}),
    };
  }
  if (request.image) {
    return { kind: 'media', media: 'image', link: request.image, caption: message };
  }
  return { kind: 'text', body: message };
}

export function contentOfTemplate(request: Omit<SendTemplateRequest, 'phone'>): OutboundContent {
  return {
    kind: 'template',
    name: request.template_name,
    language: request.template_language,
    components: request.components,
    ...replyToOf(request.reply_to),
  };
}

/** `sendmedia`: by link, or by the id of media uploaded to the provider first. */
export function contentOfMedia(
  request: Omit<SendMediaRequest, 'phone' | 'url' | 'reply_to'> & { reply_to?: number },
  source: { link: string } | { mediaId: string },
): OutboundContent {
  return {
    kind: 'media',
    media: request.type,
    ...source,
    ...(request.caption ? { caption: request.caption } : {}),
    ...(request.filename ? { filename: request.filename } : {}),
    ...replyToOf(request.reply_to),
  };
}

/** The content of a `messaging.send` command. */
export function contentOfCommand(content: SendContent): OutboundContent {
  switch (content.type) {
    case 'text':
      return contentOfMessage(content);
    case 'template':
      return contentOfTemplate(content);
    case 'media':
      return contentOfMedia({ ...content, type: content.media_type }, { link: content.url });
  }
}
