import type { TemplateRecord } from '../../state/records';
import { invalidParameter, invalidValue } from '../graph-error';
import { normalizeRecipient } from './normalize-recipient';
import type { Json } from './read-params';
import { isJsonObject, readArray, readEnum, readObject, readString } from './read-params';
import { validateInteractive } from './validate-interactive';
import type { AsyncFailure, FindMedia } from './validate-media-object';
import { validateMediaObject } from './validate-media-object';
import type { FindTemplates } from './validate-template-send';
import { validateTemplateSend } from './validate-template-send';

export const MESSAGE_TYPES = [
  'audio',
  'contacts',
  'document',
  'image',
  'interactive',
  'location',
  'reaction',
  'sticker',
  'template',
  'text',
  'video',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export interface ValidatedMessage {
  kind: 'message';
  to: string;
  waId: string;
  type: MessageType;
  template?: TemplateRecord;
  bizOpaqueCallbackData?: string;
  asyncFailure?: AsyncFailure;
}

export interface ValidatedMarkRead {
  kind: 'mark_read';
  messageId: string;
}

export interface SendLookups {
  findTemplates: FindTemplates;
  findMedia: FindMedia;
}

/** `POST /{phone_number_id}/messages`, checked the way the Cloud API checks it. */
export function validateSendRequest(
  body: unknown,
  lookups: SendLookups,
): ValidatedMessage | ValidatedMarkRead {
  if (!isJsonObject(body)) throw invalidParameter('The parameter messaging_product is required.');
  readEnum(body, 'messaging_product', '', ['whatsapp'] as const, {
    required: true,
    missingCode: 100,
  });
  if (body.status !== undefined) return validateMarkRead(body);

  const recipientType = readEnum(body, 'recipient_type', '', ['individual', 'group'] as const);
  if (recipientType === 'group') {
    throw invalidValue('Group messaging is not available for this phone number.');
  }
  const to = readString(body, 'to', '', { required: true, missingCode: 100 });
  const waId = normalizeRecipient(to);
  const type = readEnum(body, 'type', '', MESSAGE_TYPES) ?? 'text';
  const bizOpaqueCallbackData = readString(body, 'biz_opaque_callback_data', '', { max: 512 });
  const context = readObject(body, 'context', '');
  if (context) readString(context, 'message_id', 'context', { required: true });

  const result: ValidatedMessage = {
    kind: 'message',
    to,
    waId,
    type,
    ...(bizOpaqueCallbackData !== undefined && { bizOpaqueCallbackData }),
  };
  if (type === 'contacts') {
    validateContacts(body);
    return result;
  }
  const object = readObject(body, type, '', { required: true });
  const asyncFailure = validateTypeObject(type, object, lookups, result);
  return asyncFailure ? { ...result, asyncFailure } : result;
}

function validateMarkRead(body: Json): ValidatedMarkRead {
  readEnum(body, 'status', '', ['read'] as const, { required: true });
  const messageId = readString(body, 'message_id', '', { required: true, missingCode: 100 });
  if (!messageId.startsWith('wamid.')) {
    throw invalidValue(`Param message_id must be a WhatsApp message id (wamid.…).`);
  }
  const typing = readObject(body, 'typing_indicator', '');
  if (typing) readEnum(typing, 'type', 'typing_indicator', ['text'] as const, { required: true });
  return { kind: 'mark_read', messageId };
}

function validateTypeObject(
  type: MessageType,
  object: Json,
  lookups: SendLookups,
  result: ValidatedMessage,
): AsyncFailure | undefined {
  switch (type) {
    case 'text':
      readString(object, 'body', 'text', { required: true, max: 4096 });
      if (object.preview_url !== undefined && typeof object.preview_url !== 'boolean') {
        throw invalidParameter("Param text['preview_url'] must be a boolean.");
      }
      return undefined;
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker':
      return validateMediaObject(object, type, type, lookups.findMedia);
    case 'interactive':
      return validateInteractive(object, lookups.findMedia);
    case 'template':
      result.template = validateTemplateSend(object, lookups.findTemplates);
      return undefined;
    case 'reaction':
      readString(object, 'message_id', 'reaction', { required: true });
      readString(object, 'emoji', 'reaction');
      return undefined;
    case 'location':
      for (const key of ['latitude', 'longitude']) {
        const value = object[key];
        if (value === undefined) readString(object, key, 'location', { required: true });
        if (Number.isNaN(Number(value))) {
          throw invalidParameter(`Param location['${key}'] must be a number.`);
        }
      }
      return undefined;
    case 'contacts':
      return undefined;
  }
}

/** `contacts` is an array of cards, each with at least `name.formatted_name`. */
function validateContacts(body: Json): void {
  const cards = readArray(body, 'contacts', '', { required: true })!;
  if (cards.length === 0) throw invalidValue('Param contacts must contain at least one contact.');
  cards.forEach((card, index) => {
    const path = `contacts[${index}]`;
    if (!isJsonObject(card)) throw invalidValue(`Param ${path} must be a JSON object.`);
    const name = readObject(card, 'name', path, { required: true });
    readString(name, 'formatted_name', `${path}['name']`, { required: true });
  });
}
