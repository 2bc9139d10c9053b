import type { TemplateRecord } from '../../state/records';
import { GraphError, invalidParameter } from '../graph-error';
import type { Json } from '../messages/read-params';
import {
  childPath,
  isJsonObject,
  readArray,
  readEnum,
  readObject,
  readString,
} from '../messages/read-params';
import { findPlaceholders, placeholderProblem } from './placeholders';

const CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
const FORMATS = ['POSITIONAL', 'NAMED'] as const;
const COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'] as const;
const HEADER_FORMATS = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION'] as const;
const BUTTON_TYPES = [
  'QUICK_REPLY',
  'URL',
  'PHONE_NUMBER',
  'COPY_CODE',
  'OTP',
  'FLOW',
  'CATALOG',
  'MPM',
  'VOICE_CALL',
] as const;

export type NewTemplate = Pick<
  TemplateRecord,
  'name' | 'language' | 'category' | 'parameter_format' | 'components'
> & { sub_category?: string };

/** `POST /{waba_id}/message_templates` body (reference §1.2, creation body). */
export function validateTemplateCreation(body: unknown): NewTemplate {
  if (!isJsonObject(body)) throw invalidParameter('The parameter name is required.');
  const name = readString(body, 'name', '', { required: true, missingCode: 100, max: 512 });
  if (!/^[a-z0-9_]+$/.test(name)) {
    throw templateError(
      'Param name must contain only lowercase alphanumeric characters and underscores.',
      'Invalid template name',
    );
  }
  const category = readEnum(body, 'category', '', CATEGORIES, {
    required: true,
    missingCode: 100,
  })!;
  const language = readString(body, 'language', '', { required: true, missingCode: 100 });
  if (!/^[a-z]{2,3}(_[A-Z]{2,4})?$/.test(language)) {
    throw invalidParameter(
      `Param language must be a language code such as en_US - got "${language}".`,
    );
  }
  const format = readEnum(body, 'parameter_format', '', FORMATS) ?? 'POSITIONAL';
  const subCategory = readString(body, 'sub_category', '');
  const components = readArray(body, 'components', '', { required: true, missingCode: 100 })!;
  if (components.length === 0) throw invalidParameter('Param components must not be empty.');

  const seen = new Set<string>();
  components.forEach((component, index) => {
    const path = childPath('components', index);
    if (!isJsonObject(component)) throw invalidParameter(`Param ${path} must be a JSON object.`);
    const type = readEnum(component, 'type', path, COMPONENT_TYPES, { required: true })!;
    if (seen.has(type)) throw invalidParameter(`Param components has more than one ${type}.`);
    seen.add(type);
    if (type === 'HEADER') validateHeader(component, path, format);
    if (type === 'BODY') validateBody(component, path, format, category);
    if (type === 'FOOTER' && category !== 'AUTHENTICATION') {
      readString(component, 'text', path, { required: true, max: 60 });
    }
    if (type === 'BUTTONS') validateButtons(component, path);
  });
  if (!seen.has('BODY')) throw invalidParameter('Param components must include a BODY component.');
  return {
    name,
    language,
    category,
    parameter_format: format,
    components: components as Json[],
    ...(subCategory !== undefined && { sub_category: subCategory }),
  };
}

export function templateError(details: string, userTitle: string, subcode?: number): GraphError {
  return new GraphError(100, {
    details,
    userTitle,
    userMessage: details,
    ...(subcode !== undefined && { subcode }),
  });
}

function checkVariables(text: string, path: string, format: 'POSITIONAL' | 'NAMED'): string[] {
  const names = findPlaceholders(text);
  const problem = placeholderProblem(names, format);
  if (problem) throw templateError(`${path}: ${problem}`, 'Invalid parameter format');
  return names;
}

function missingExample(path: string): GraphError {
  return templateError(
    `${path}: an example is required for each variable.`,
    "Message template 'example' field is missing",
  );
}

function validateHeader(component: Json, path: string, format: 'POSITIONAL' | 'NAMED'): void {
  const headerFormat = readEnum(component, 'format', path, HEADER_FORMATS, { required: true })!;
  const example = readObject(component, 'example', path);
  if (headerFormat === 'TEXT') {
    const text = readString(component, 'text', path, { required: true, max: 60 });
    const names = checkVariables(text, childPath(path, 'text'), format);
    if (names.length > 1) {
      throw templateError(`${path}: a header may hold at most one variable.`, 'Too many variables');
    }
    const examples = example?.header_text ?? example?.header_text_named_params;
    if (names.length === 1 && !(Array.isArray(examples) && examples.length === 1)) {
      throw missingExample(path);
    }
    return;
  }
  if (headerFormat !== 'LOCATION') {
    const handles = example?.header_handle;
    if (!Array.isArray(handles) || handles.length === 0) throw missingExample(path);
  }
}

function validateBody(
  component: Json,
  path: string,
  format: 'POSITIONAL' | 'NAMED',
  category: string,
): void {
  const required = category !== 'AUTHENTICATION';
  const text = readString(component, 'text', path, { required, max: 1024 });
  if (text === undefined) return;
  const names = checkVariables(text, childPath(path, 'text'), format);
  if (names.length === 0) return;
  const example = readObject(component, 'example', path);
  if (format === 'NAMED') {
    const given = example?.body_text_named_params;
    const covered = Array.isArray(given)
      ? given.filter(isJsonObject).map((entry) => String(entry.param_name))
      : [];
    if (names.some((name) => !covered.includes(name))) throw missingExample(path);
    return;
  }
  const rows = example?.body_text;
  const first = Array.isArray(rows) ? rows[0] : undefined;
  if (!Array.isArray(first) || first.length !== names.length) throw missingExample(path);
}

function validateButtons(component: Json, path: string): void {
  const buttons = readArray(component, 'buttons', path, { required: true })!;
  if (buttons.length < 1 || buttons.length > 10) {
    throw invalidParameter(`Param ${path}['buttons'] must hold between 1 and 10 buttons.`);
  }
  buttons.forEach((button, index) => {
    const buttonPath = childPath(childPath(path, 'buttons'), index);
    if (!isJsonObject(button)) throw invalidParameter(`Param ${buttonPath} must be a JSON object.`);
    const type = readEnum(button, 'type', buttonPath, BUTTON_TYPES, { required: true })!;
    const needsText = type !== 'OTP' && type !== 'COPY_CODE' && type !== 'CATALOG';
    readString(button, 'text', buttonPath, { required: needsText, max: 25 });
    if (type === 'URL') {
      const url = readString(button, 'url', buttonPath, { required: true, max: 2000 });
      const variables = findPlaceholders(url);
      if (variables.length > 1 || (variables.length === 1 && !/\{\{\s*1\s*\}\}$/.test(url))) {
        throw templateError(
          `${buttonPath}: a URL may hold one variable, {{1}}, at its end.`,
          'Invalid URL variable',
        );
      }
      if (variables.length === 1 && !Array.isArray(button.example))
        throw missingExample(buttonPath);
    }
    if (type === 'PHONE_NUMBER')
      readString(button, 'phone_number', buttonPath, { required: true, max: 20 });
  });
}
