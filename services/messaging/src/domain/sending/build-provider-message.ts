/**
 * Builds the Cloud API send bodies (cloud-api.md §1.1–1.2) from what a customer asked for.
 * Limits are checked here, before any quota is reserved or any call is made, so that a request
 * the provider would refuse is answered 422 with the field named.
 */
import { AppError } from '@switchboard/service-kit';

export type MediaKind = 'image' | 'document' | 'video' | 'audio';

export interface ReplyButton {
  id: string;
  title: string;
}

export type OutboundContent =
  | { kind: 'text'; body: string; previewUrl?: boolean }
  | {
      kind: 'buttons';
      body: string;
      buttons: ReplyButton[];
      header?: { type: 'text'; text: string } | { type: 'image'; link: string };
      footer?: string;
    }
  | {
      kind: 'media';
      media: MediaKind;
      link?: string;
      mediaId?: string;
      caption?: string;
      filename?: string;
    }
  | {
      kind: 'template';
      name: string;
      language: string;
      components: unknown[];
    };

export const LIMITS = {
  textBody: 4096,
  interactiveBody: 1024,
  footer: 60,
  headerText: 60,
  buttons: 3,
  buttonTitle: 20,
  buttonId: 256,
  caption: 1024,
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
    case 'template':
      return;
  }
}

/** The JSON body of `POST /{phone_number_id}/messages` for one recipient. */
export function buildProviderMessage(
  to: string,
  content: OutboundContent,
): Record<string, unknown> {
  const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  switch (content.kind) {
    case 'text':
      return {
        ...envelope,
        type: 'text',
        text: { body: content.body, ...(content.previewUrl ? { preview_url: true } : {}) },
      };
    case 'buttons':
      return {
        ...envelope,
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
      if (content.caption && content.media !== 'audio') media.caption = content.caption;
      if (content.filename && content.media === 'document') media.filename = content.filename;
      return { ...envelope, type: content.media, [content.media]: media };
    }
    case 'template':
      return {
        ...envelope,
        type: 'template',
        template: {
          name: content.name,
          language: { code: content.language },
          ...(content.components.length > 0 ? { components: content.components } : {}),
        },
      };
  }
}

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
  }
}
