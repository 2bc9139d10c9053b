import type { TemplateRecord } from '../../state/records';
import type { KnownMessage } from './known-message';
import { invalidParameter, invalidValue } from '../graph-error';
import { normalizeRecipient } from './normalize-recipient';
import type { Json } from './read-params';
import { isJsonObject, readEnum, readObject, readString } from './read-params';
import { validateContacts, validateLocation, validateReaction } from './validate-other-types';
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
  typing?: boolean;
}

export interface SendLookups {
  findTemplates: FindTemplates;
  findMedia: FindMedia;
  /** Without it, references to messages (read receipts, reactions) are not checked. */
  findMessage?: (wamid: string) => KnownMessage | undefined;
  /** The business number the request is for (read receipts name its messages only). */
  phoneNumberId?: string;
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
  if (body.status !== undefined) return validateMarkRead(body, lookups);

  const recipientType = readEnum(body, 'recipient_type', '', ['individual', 'group'] as const);
  if (recipientType === 'group') {
    throw invalidValue('Group messaging is not available for this phone number.');
  }
  const to = readString(body, 'to', '', { required: true, missingCode: 100 });
  const waId = normalizeRecipient(to);
  const type = readEnum(body, 'type', '', MESSAGE_TYPES) ?? 'text';
  const bizOpaqueCallbackData = readString(body, 'biz_opaque_callback_data', '', { max: 512 });
  const context = readObject(body, 'context', '');
  if (context) {
    const repliedTo = readString(context, 'message_id', 'context', { required: true });
    if (!repliedTo.startsWith('wamid.')) {
      throw invalidValue(`Param context['message_id'] must be a WhatsApp message id (wamid.…).`);
    }
  }

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
  const asyncFailure =
    type === 'reaction'
      ? validateReaction(object, waId, lookups.findMessage)
      : validateTypeObject(type, object, lookups, result);
  return asyncFailure ? { ...result, asyncFailure } : result;
}

/**
 * A read receipt: only for a message a user sent to this number (Meta refuses to mark the
 * business's own messages read), optionally with a typing indicator.
 */
function validateMarkRead(body: Json, lookups: SendLookups): ValidatedMarkRead {
  readEnum(body, 'status', '', ['read'] as const, { required: true });
  const messageId = readString(body, 'message_id', '', { required: true, missingCode: 100 });
  if (!messageId.startsWith('wamid.')) {
    throw invalidValue(`Param message_id must be a WhatsApp message id (wamid.…).`);
  }
  const typing = readObject(body, 'typing_indicator', '');
  if (typing) readEnum(typing, 'type', 'typing_indicator', ['text'] as const, { required: true });
  if (lookups.findMessage) {
    const known = lookups.findMessage(messageId);
    if (
      !known ||
      known.direction !== 'inbound' ||
      (lookups.phoneNumberId !== undefined && known.phone_number_id !== lookups.phoneNumberId)
    ) {
      throw invalidValue(
        `Param message_id is not a message received by this phone number: only incoming messages can be marked as read.`,
      );
    }
  }
  return { kind: 'mark_read', messageId, ...(typing && { typing: true }) };
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
    case 'location':
      validateLocation(object);
      return undefined;
    case 'reaction':
    case 'contacts':
      return undefined;
  }
}
