import type { TemplateRecord } from '../../state/records';
import { GraphError, invalidValue } from '../graph-error';
import { findPlaceholders, hydrate } from '../templates/placeholders';
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

export type FindTemplates = (name: string) => TemplateRecord[];

const COMPONENT_TYPES = ['header', 'body', 'button'] as const;
const PARAMETER_TYPES = [
  'text',
  'currency',
  'date_time',
  'image',
  'video',
  'document',
  'location',
  'payload',
  'coupon_code',
  'action',
  'limited_time_offer',
  'order_status',
  'product',
  'tap_target_configuration',
] as const;
type ParameterType = (typeof PARAMETER_TYPES)[number];

interface SentParameter {
  type: ParameterType;
  name?: string;
  value?: string;
}

/**
 * A template send: the template must exist in the WABA for that name and language and be
 * APPROVED (132001; paused 132015, disabled 132016), and the parameters must fit its
 * placeholders (count 132000, header format 132012, hydrated body ≤ 1024 else 132005).
 */
export function validateTemplateSend(template: Json, findTemplates: FindTemplates): TemplateRecord {
  const name = readString(template, 'name', 'template', { required: true, max: 512 });
  const language = readObject(template, 'language', 'template', { required: true });
  const code = readString(language, 'code', "template['language']", { required: true });
  const components = readArray(template, 'components', 'template') ?? [];

  const sent = { header: [] as SentParameter[], body: [] as SentParameter[] };
  const buttons = new Map<number, { subType: string; parameters: SentParameter[] }>();
  components.forEach((component, index) => {
    const path = childPath(childPath('template', 'components'), index);
    if (!isJsonObject(component)) throw invalidValue(`Param ${path} must be a JSON object.`);
    const type = readEnum(component, 'type', path, COMPONENT_TYPES, { required: true })!;
    const parameters = readParameters(component, path);
    if (type === 'button') {
      const subType = readString(component, 'sub_type', path, { required: true })!.toLowerCase();
      const position = Number(component.index);
      if (!Number.isInteger(position) || position < 0) {
        throw invalidValue(`Param ${path}['index'] must be a button position such as "0".`);
      }
      buttons.set(position, { subType, parameters });
    } else {
      sent[type].push(...parameters);
    }
  });

  const record = findApproved(findTemplates(name), name, code);
  checkHeader(record, sent.header);
  checkBody(record, sent.body);
  checkButtons(record, buttons);
  return record;
}

function findApproved(candidates: TemplateRecord[], name: string, code: string): TemplateRecord {
  const record = candidates.find((candidate) => candidate.language === code);
  if (!record || record.status === 'DELETED') {
    throw new GraphError(132001, { details: `template name (${name}) does not exist in ${code}` });
  }
  if (record.status === 'PAUSED') {
    throw new GraphError(132015, { details: `Template ${name} is paused.` });
  }
  if (record.status === 'DISABLED') {
    throw new GraphError(132016, { details: `Template ${name} is disabled.` });
  }
  if (record.status !== 'APPROVED') {
    throw new GraphError(132001, {
      details: `template name (${name}) does not exist in ${code} (status ${record.status})`,
    });
  }
  return record;
}

function readParameters(component: Json, path: string): SentParameter[] {
  const parameters = readArray(component, 'parameters', path) ?? [];
  return parameters.map((parameter, index) => {
    const parameterPath = childPath(childPath(path, 'parameters'), index);
    if (!isJsonObject(parameter))
      throw invalidValue(`Param ${parameterPath} must be a JSON object.`);
    const type = readEnum(parameter, 'type', parameterPath, PARAMETER_TYPES, { required: true })!;
    const name = readString(parameter, 'parameter_name', parameterPath);
    let value: string | undefined;
    if (type === 'text') value = readString(parameter, 'text', parameterPath, { required: true });
    if (type === 'payload') readString(parameter, 'payload', parameterPath, { required: true });
    if (type === 'currency' || type === 'date_time') {
      const object = readObject(parameter, type, parameterPath, { required: true });
      value = readString(object, 'fallback_value', childPath(parameterPath, type), {
        required: true,
      });
    }
    if (type === 'image' || type === 'video' || type === 'document') {
      const media = readObject(parameter, type, parameterPath, { required: true });
      if (media.id === undefined && media.link === undefined) {
        throw new GraphError(131008, {
          details: `The parameter ${childPath(parameterPath, type)}['id'] or ['link'] is required.`,
        });
      }
    }
    return { type, ...(name !== undefined && { name }), ...(value !== undefined && { value }) };
  });
}

const componentOf = (record: TemplateRecord, type: string): Json | undefined =>
  record.components.find((component) => String(component.type).toUpperCase() === type);

function countMismatch(component: string, given: number, expected: number): GraphError {
  return new GraphError(132000, {
    details: `${component}: number of localizable_params (${given}) does not match the expected number of params (${expected})`,
  });
}

function checkHeader(record: TemplateRecord, sent: SentParameter[]): void {
  const header = componentOf(record, 'HEADER');
  const format = String(header?.format ?? 'TEXT').toUpperCase();
  if (!header || format === 'TEXT') {
    const expected = header ? findPlaceholders(String(header.text ?? '')).length : 0;
    if (sent.length !== expected) throw countMismatch('header', sent.length, expected);
    return;
  }
  const given = sent[0];
  if (sent.length > 1) throw countMismatch('header', sent.length, 1);
  if (!given || given.type.toUpperCase() !== format) {
    throw new GraphError(132012, {
      details: `header: Format mismatch, expected ${format}, received ${given ? given.type.toUpperCase() : 'UNKNOWN'}`,
    });
  }
}

function checkBody(record: TemplateRecord, sent: SentParameter[]): void {
  const text = String(componentOf(record, 'BODY')?.text ?? '');
  const expected = findPlaceholders(text);
  if (sent.length !== expected.length) throw countMismatch('body', sent.length, expected.length);
  const values = new Map<string, string>();
  if (record.parameter_format === 'NAMED') {
    const given = sent.map((parameter) => parameter.name ?? '');
    const same = [...given].sort().join(',') === [...expected].sort().join(',');
    if (!same) {
      throw new GraphError(132000, {
        details: `body: parameter names (${given.join(', ')}) do not match the expected parameter names (${expected.join(', ')})`,
      });
    }
    sent.forEach((parameter) => values.set(parameter.name!, parameter.value ?? ''));
  } else {
    sent.forEach((parameter, index) => values.set(String(index + 1), parameter.value ?? ''));
  }
  if (characterCount(hydrate(text, values)) > 1024) {
    throw new GraphError(132005, { details: 'body: hydrated text is longer than 1024 characters' });
  }
}

function checkButtons(
  record: TemplateRecord,
  sent: Map<number, { subType: string; parameters: SentParameter[] }>,
): void {
  const defined = (componentOf(record, 'BUTTONS')?.buttons as Json[] | undefined) ?? [];
  for (const [index, button] of sent) {
    const definition = defined[index];
    if (!definition) throw invalidValue(`Button at index ${index} does not exist in the template.`);
    if (String(definition.type).toLowerCase() !== button.subType) {
      throw invalidValue(
        `Button at index ${index} is of type ${String(definition.type)}, not ${button.subType}.`,
      );
    }
  }
  defined.forEach((definition, index) => {
    if (String(definition.type).toUpperCase() !== 'URL') return;
    const expected = findPlaceholders(String(definition.url ?? '')).length;
    const given = sent.get(index)?.parameters.length ?? 0;
    if (given !== expected) throw countMismatch(`button at index ${index}`, given, expected);
  });
}
