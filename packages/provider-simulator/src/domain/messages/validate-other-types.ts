import { invalidParameter, invalidValue } from '../graph-error';
import type { Json } from './read-params';
import { childPath, isJsonObject, readArray, readObject, readString } from './read-params';
import type { AsyncFailure } from './validate-media-object';
import type { KnownMessage } from './known-message';

/** Meta takes up to 257 contact cards in one message. */
const MAX_CONTACT_CARDS = 257;
const NAME_FIELDS = [
  'formatted_name',
  'first_name',
  'last_name',
  'middle_name',
  'suffix',
  'prefix',
];
const CARD_LISTS: Record<string, string[]> = {
  phones: ['phone', 'type', 'wa_id'],
  emails: ['email', 'type'],
  urls: ['url', 'type'],
  addresses: ['street', 'city', 'state', 'zip', 'country', 'country_code', 'type'],
};

/** Latitude and longitude in decimal degrees (numbers, or numeric strings as Meta's examples show). */
export function validateLocation(location: Json): void {
  const ranges = { latitude: 90, longitude: 180 } as const;
  for (const [key, limit] of Object.entries(ranges)) {
    const value = location[key];
    if (value === undefined || value === null) {
      readString(location, key, 'location', { required: true });
    }
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) {
      throw invalidParameter(`Param location['${key}'] must be a number.`);
    }
    if (number < -limit || number > limit) {
      throw invalidValue(`Param location['${key}'] must be between -${limit} and ${limit}.`);
    }
  }
  readString(location, 'name', 'location');
  readString(location, 'address', 'location');
}

/** `contacts`: 1 to 257 cards, each with `name.formatted_name`, its lists of objects of strings. */
export function validateContacts(body: Json): void {
  const cards = readArray(body, 'contacts', '', { required: true })!;
  if (cards.length === 0) throw invalidValue('Param contacts must contain at least one contact.');
  if (cards.length > MAX_CONTACT_CARDS) {
    throw invalidValue(
      `Contacts count is ${cards.length}. Contacts count must be between 1 and ${MAX_CONTACT_CARDS}.`,
    );
  }
  cards.forEach((card, index) => {
    const path = `contacts[${index}]`;
    if (!isJsonObject(card)) throw invalidValue(`Param ${path} must be a JSON object.`);
    const name = readObject(card, 'name', path, { required: true });
    const namePath = childPath(path, 'name');
    readString(name, 'formatted_name', namePath, { required: true });
    for (const field of NAME_FIELDS) readString(name, field, namePath);
    const birthday = readString(card, 'birthday', path);
    if (birthday !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(birthday)) {
      throw invalidValue(`Param ${childPath(path, 'birthday')} must be a date as YYYY-MM-DD.`);
    }
    const org = readObject(card, 'org', path);
    if (org)
      for (const field of ['company', 'department', 'title'])
        readString(org, field, childPath(path, 'org'));
    for (const [list, fields] of Object.entries(CARD_LISTS)) {
      const entries = readArray(card, list, path) ?? [];
      entries.forEach((entry, position) => {
        const entryPath = childPath(childPath(path, list), position);
        if (!isJsonObject(entry)) throw invalidValue(`Param ${entryPath} must be a JSON object.`);
        for (const field of fields) readString(entry, field, entryPath);
      });
    }
  });
}

// One emoji (a flag, a keycap, a sequence joined by ZWJ): a single grapheme with a pictograph.
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;
const isOneEmoji = (text: string): boolean =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length === 1 &&
  EMOJI.test(text);

/**
 * A reaction: the wamid of a message and one emoji (an empty one takes the reaction back). As
 * Meta documents, a reaction to a message that is not in the conversation with this user, or to
 * a reaction, is accepted and then fails asynchronously with 131009.
 */
export function validateReaction(
  reaction: Json,
  waId: string,
  findMessage: ((wamid: string) => KnownMessage | undefined) | undefined,
): AsyncFailure | undefined {
  const messageId = readString(reaction, 'message_id', 'reaction', { required: true });
  if (!messageId.startsWith('wamid.')) {
    throw invalidValue(`Param reaction['message_id'] must be a WhatsApp message id (wamid.…).`);
  }
  if (reaction.emoji === undefined || reaction.emoji === null) {
    readString(reaction, 'emoji', 'reaction', { required: true });
  }
  const emoji = readString(reaction, 'emoji', 'reaction') ?? '';
  if (emoji !== '' && !isOneEmoji(emoji)) {
    throw invalidValue(`Param reaction['emoji'] must be a single emoji.`);
  }
  if (!findMessage) return undefined;
  const target = findMessage(messageId);
  if (!target || target.wa_id !== waId || target.type === 'reaction') {
    return {
      code: 131009,
      details: `Reaction message_id ${messageId} does not correspond to a message in this conversation.`,
    };
  }
  return undefined;
}
