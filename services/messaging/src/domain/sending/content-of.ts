import type {
  SendContent,
  SendMediaRequest,
  SendMessageRequest,
  SendTemplateRequest,
} from '@switchboard/contracts';
import type { OutboundContent } from './build-provider-message';

/** `sendMessageToPhoneNumber`: reply buttons, else an image with the text as caption, else a text. */
export function contentOfMessage(request: Omit<SendMessageRequest, 'phone'>): OutboundContent {
  if (request.buttons && request.buttons.length > 0) {
    const header = request.image
      ? ({ type: 'image', link: request.image } as const)
      : request.header
        ? ({ type: 'text', text: request.header } as const)
        : undefined;
    return {
      kind: 'buttons',
      body: request.message,
      buttons: request.buttons,
      ...(header ? { header } : {}),
      ...(request.footer ? { footer: request.footer } : {}),
    };
  }
  if (request.image) {
    return { kind: 'media', media: 'image', link: request.image, caption: request.message };
  }
  return { kind: 'text', body: request.message };
}

export function contentOfTemplate(request: Omit<SendTemplateRequest, 'phone'>): OutboundContent {
  return {
    kind: 'template',
    name: request.template_name,
    language: request.template_language,
    components: request.components,
  };
}

/** `sendmedia`: by link, or by the id of media uploaded to the provider first. */
export function contentOfMedia(
  request: Omit<SendMediaRequest, 'phone' | 'url'>,
  source: { link: string } | { mediaId: string },
): OutboundContent {
  return {
    kind: 'media',
    media: request.type,
    ...source,
    ...(request.caption ? { caption: request.caption } : {}),
    ...(request.filename ? { filename: request.filename } : {}),
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
