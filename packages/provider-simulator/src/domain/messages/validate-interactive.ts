import { invalidValue } from '../graph-error';
import type { AsyncFailure, FindMedia } from './validate-media-object';
import { validateMediaObject } from './validate-media-object';
import type { Json } from './read-params';
import {
  characterCount,
  childPath,
  isJsonObject,
  readArray,
  readEnum,
  readObject,
  readString,
} from './read-params';

const INTERACTIVE_TYPES = [
  'button',
  'list',
  'cta_url',
  'flow',
  'product',
  'product_list',
  'catalog_message',
  'location_request_message',
  'address_message',
  'voice_call',
] as const;

const HEADER_TYPES = ['text', 'image', 'video', 'document'] as const;

/**
 * Interactive messages: reply buttons and lists fully (limits of reference §1.2); call-to-action
 * URL lightly; the commerce and flow types only for their envelope. Free-text lengths answer 100,
 * structural rules (button count, title length, uniqueness) 131009.
 */
export function validateInteractive(
  interactive: Json,
  findMedia: FindMedia,
): AsyncFailure | undefined {
  const path = 'interactive';
  const type = readEnum(interactive, 'type', path, INTERACTIVE_TYPES, { required: true })!;
  const asyncFailure = validateHeader(interactive, findMedia, type === 'list');
  const bodyRequired = type !== 'product' && type !== 'location_request_message';
  const body = readObject(interactive, 'body', path, { required: bodyRequired });
  if (body) {
    readString(body, 'text', childPath(path, 'body'), {
      required: true,
      max: type === 'list' ? 4096 : 1024,
    });
  }
  const footer = readObject(interactive, 'footer', path);
  if (footer) readString(footer, 'text', childPath(path, 'footer'), { required: true, max: 60 });
  const action = readObject(interactive, 'action', path, { required: true });

  if (type === 'button') validateReplyButtons(action);
  if (type === 'list') validateList(action);
  if (type === 'cta_url') validateCallToAction(action);
  return asyncFailure;
}

/** A list message's header is text only; reply buttons may show media as well. */
function validateHeader(
  interactive: Json,
  findMedia: FindMedia,
  textOnly: boolean,
): AsyncFailure | undefined {
  const header = readObject(interactive, 'header', 'interactive');
  if (!header) return undefined;
  const path = "interactive['header']";
  const allowed = textOnly ? (['text'] as const) : HEADER_TYPES;
  const type = readEnum(header, 'type', path, allowed, { required: true })!;
  if (type === 'text') {
    readString(header, 'text', path, { required: true, max: 60 });
    return undefined;
  }
  const media = readObject(header, type, path, { required: true });
  return validateMediaObject(media, type, childPath(path, type), findMedia);
}

function validateReplyButtons(action: Json): void {
  const path = "interactive['action']";
  const buttons = readArray(action, 'buttons', path, { required: true })!;
  if (buttons.length < 1 || buttons.length > 3) {
    throw invalidValue(
      `Buttons count is ${buttons.length}. Buttons count must be between 1 and 3.`,
    );
  }
  const titles = new Set<string>();
  const ids = new Set<string>();
  buttons.forEach((button, index) => {
    const buttonPath = childPath(childPath(path, 'buttons'), index);
    if (!isJsonObject(button)) throw invalidValue(`Param ${buttonPath} must be a JSON object.`);
    readEnum(button, 'type', buttonPath, ['reply'] as const, { required: true });
    const reply = readObject(button, 'reply', buttonPath, { required: true });
    const replyPath = childPath(buttonPath, 'reply');
    const id = readString(reply, 'id', replyPath, { required: true, max: 256, maxCode: 131009 });
    const title = readString(reply, 'title', replyPath, {
      required: true,
      max: 20,
      maxCode: 131009,
    });
    if (titles.has(title.trim().toLowerCase())) {
      throw invalidValue(`Button title "${title}" is not unique: button titles must be unique.`);
    }
    if (ids.has(id))
      throw invalidValue(`Button id "${id}" is not unique: button ids must be unique.`);
    titles.add(title.trim().toLowerCase());
    ids.add(id);
  });
}

function validateList(action: Json): void {
  const path = "interactive['action']";
  readString(action, 'button', path, { required: true, max: 20, maxCode: 131009 });
  const sections = readArray(action, 'sections', path, { required: true })!;
  if (sections.length < 1 || sections.length > 10) {
    throw invalidValue(
      `Sections count is ${sections.length}. Sections count must be between 1 and 10.`,
    );
  }
  let rowCount = 0;
  const rowIds = new Set<string>();
  sections.forEach((section, index) => {
    const sectionPath = childPath(childPath(path, 'sections'), index);
    if (!isJsonObject(section)) throw invalidValue(`Param ${sectionPath} must be a JSON object.`);
    readString(section, 'title', sectionPath, {
      required: sections.length > 1,
      max: 24,
      maxCode: 131009,
    });
    const rows = readArray(section, 'rows', sectionPath, { required: true })!;
    rows.forEach((row, rowIndex) => {
      const rowPath = childPath(childPath(sectionPath, 'rows'), rowIndex);
      if (!isJsonObject(row)) throw invalidValue(`Param ${rowPath} must be a JSON object.`);
      const id = readString(row, 'id', rowPath, { required: true, max: 200, maxCode: 131009 });
      readString(row, 'title', rowPath, { required: true, max: 24, maxCode: 131009 });
      readString(row, 'description', rowPath, { max: 72, maxCode: 131009 });
      if (rowIds.has(id))
        throw invalidValue(`Row id "${id}" is not unique: row ids must be unique.`);
      rowIds.add(id);
    });
    rowCount += rows.length;
  });
  if (rowCount < 1 || rowCount > 10) {
    throw invalidValue(`Total row count is ${rowCount}. Total row count must be between 1 and 10.`);
  }
}

function validateCallToAction(action: Json): void {
  const path = "interactive['action']";
  readString(action, 'name', path, { required: true });
  const parameters = readObject(action, 'parameters', path, { required: true });
  const parametersPath = childPath(path, 'parameters');
  const displayText = readString(parameters, 'display_text', parametersPath, { required: true });
  if (characterCount(displayText) > 20) {
    throw invalidValue(
      `Param ${parametersPath}['display_text'] must be at most 20 characters long.`,
    );
  }
  readString(parameters, 'url', parametersPath, { required: true, max: 2000 });
}
