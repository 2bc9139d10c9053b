/**
 * Builds the Cloud API send bodies (as Meta documents them) from what a customer asked for.
 * Limits are checked here, before any quota is reserved or any call is made, so that a request
 * the provider would refuse is answered 422 with the field named.
 */
import { AppError } from '@switchboard/service-kit';
import type { MediaKind, MessageReference, OutboundContent } from './send-types';

export const LIMITS = {
  textBody: 4096,
  interactiveBody: 1024,
  footer: 60,
  headerText: 60,
  buttons: 3,
  buttonTitle: 20,
  buttonId: 256,
  caption: 1024,
  listBody: 4096,
  listSections: 10,
  listRows: 10,
} as const;

function tooLong(field: string, value: string | undefined, max: number): void {
  if (value !== undefined && [...value].length > max) {
    throw new AppError('validation_failed', `${field}: must be at most ${max} characters`);
  }
}

export function checkLimits(content: OutboundContent): void {
  switch (content.kind) {
    case 'text':
      tooLong('message', content.body, LIMITS.textBody);
      return;
    case 'buttons': {
      tooLong('message', content.body, LIMITS.interactiveBody);
      tooLong('footer', content.footer, LIMITS.footer);
      if (content.header?.type === 'text')
        tooLong('header', content.header.text, LIMITS.headerText);
      if (content.buttons.length < 1 || content.buttons.length > LIMITS.buttons) {
        throw new AppError('validation_failed', `buttons: between 1 and ${LIMITS.buttons} buttons`);
      }
      const titles = new Set<string>();
      content.buttons.forEach((button, index) => {
        tooLong(`buttons.${index}.title`, button.title, LIMITS.buttonTitle);
        tooLong(`buttons.${index}.id`, button.id, LIMITS.buttonId);
        if (titles.has(button.title)) {
          throw new AppError('validation_failed', `buttons.${index}.title: titles must be unique`);
        }
        titles.add(button.title);
      });
      return;
    }
    case 'media':
      tooLong('caption', content.caption, LIMITS.caption);
      return;
    case 'list': {
      tooLong('message', content.body, LIMITS.listBody);
      tooLong('header', content.header, LIMITS.headerText);
      tooLong('footer', content.footer, LIMITS.footer);
      const rows = content.list.sections.flatMap((section) => section.rows).length;
      if (content.list.sections.length > LIMITS.listSections || rows > LIMITS.listRows) {
        throw new AppError(
          'validation_failed',
          `list.sections: at most ${LIMITS.listSections} sections and ${LIMITS.listRows} rows in all`,
        );
      }
      return;
    }
    case 'template':
    case 'location':
    case 'contacts':
    case 'reaction':
      return;
  }
}

/** The provider's id of a message referred to; looked up before the body is built. */
function wamidOf(reference: MessageReference): string {
  if (!reference.wamid) {
    throw new Error(`message ${reference.message_id} was not looked up before sending`);
  }
  return reference.wamid;
}

/** The JSON body of `POST /{phone_number_id}/messages` for one recipient. */
export function buildProviderMessage(
  to: string,
  content: OutboundContent,
): Record<string, unknown> {
  const envelope = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to,
    ...(content.replyTo ? { context: { message_id: wamidOf(content.replyTo) } } : {}),
  };
  return { ...envelope, ...typeObjectOf(content) };
}

/** `type` and the object keyed by it. */
function typeObjectOf(content: OutboundContent): Record<string, unknown> {
  switch (content.kind) {
    case 'text':
      return {
        type: 'text',
        text: { body: content.body, ...(content.previewUrl ? { preview_url: true } : {}) },
      };
    case 'buttons':
      return {
        type: 'interactive',
        interactive: {
          type: 'button',
          ...(content.header
            ? {
                header:
                  content.header.type === 'text'
                    ? { type: 'text', text: content.header.text }
                    : { type: 'image', image: { link: content.header.link } },
              }
            : {}),
          body: { text: content.body },
          ...(content.footer ? { footer: { text: content.footer } } : {}),
          action: {
            buttons: content.buttons.map((button) => ({
              type: 'reply',
              reply: { id: button.id, title: button.title },
            })),
          },
        },
      };
    case 'media': {
      const media: Record<string, unknown> = content.mediaId
        ? { id: content.mediaId }
        : { link: content.link };
      if (content.caption && CAPTIONED.has(content.media)) media.caption = content.caption;
      if (content.filename && content.media === 'document') media.filename = content.filename;
      return { type: content.media, [content.media]: media };
    }
    case 'template':
      return {
        type: 'template',
        template: {
          name: content.name,
          language: { code: content.language },
          ...(content.components.length > 0 ? { components: content.components } : {}),
        },
      };
    case 'list':
      return {
        type: 'interactive',
        interactive: {
          type: 'list',
          ...(content.header ? { header: { type: 'text', text: content.header } } : {}),
          body: { text: content.body },
          ...(content.footer ? { footer: { text: content.footer } } : {}),
          action: {
            button: content.list.button,
            sections: content.list.sections.map((section) => ({
              ...(section.title ? { title: section.title } : {}),
              rows: section.rows.map((row) => ({
                id: row.id,
                title: row.title,
                ...(row.description ? { description: row.description } : {}),
              })),
            })),
          },
        },
      };
    case 'location':
      return { type: 'location', location: content.location };
    case 'contacts':
      return { type: 'contacts', contacts: content.cards };
    case 'reaction':
      return {
        type: 'reaction',
        reaction: { message_id: wamidOf(content.to), emoji: content.emoji },
      };
  }
}

/** The media the provider shows a caption with (never audio or a sticker). */
const CAPTIONED = new Set<MediaKind>(['image', 'video', 'document']);

/** A short text for lists and the `message` field of events. */
export function previewOf(content: OutboundContent): string {
  switch (content.kind) {
    case 'text':
    case 'buttons':
      return content.body;
    case 'media':
      return content.caption ?? `[${content.media}]`;
    case 'template':
      return `[template ${content.name}]`;
    case 'list':
      return content.body;
    case 'location': {
      const { name, address, latitude, longitude } = content.location;
      const place = [name, address].filter(Boolean).join(', ');
      return place ? `[location] ${place}` : `[location ${latitude}, ${longitude}]`;
    }
    case 'contacts':
      return `[contacts] ${content.cards.map((card) => card.name.formatted_name).join(', ')}`;
    case 'reaction':
      return content.emoji === '' ? '[reaction removed]' : content.emoji;
  }
}
