import type { CreateTemplateRequest } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';

// The provider's rules for template text (as the Cloud API documents it), checked before anything is sent to
// it, so a mistake is answered at once and names the component.

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** The placeholders of a text, in order of appearance (`{{1}}` → "1", `{{name}}` → "name"). */
export function placeholdersOf(text: string | undefined): string[] {
  if (!text) return [];
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

const invalid = (path: string, message: string) =>
  new AppError('validation_failed', `${path}: ${message}`);

function checkPlaceholders(names: string[], format: 'POSITIONAL' | 'NAMED', path: string): void {
  if (format === 'NAMED') {
    for (const name of names) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
        throw invalid(path, `named placeholders are lowercase letters, digits and _ ({{${name}}})`);
      }
    }
    return;
  }
  names.forEach((name, index) => {
    if (name !== String(index + 1)) {
      throw invalid(
        path,
        `placeholders must be {{1}}, {{2}}… in order; found {{${name}}} where {{${index + 1}}} belongs`,
      );
    }
  });
}

const stringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '');

/** How many buttons of one kind a template may hold, beyond the ten in all (as the Cloud API documents it). */
const MAX_BUTTONS_OF_TYPE: Record<string, number> = { URL: 2, PHONE_NUMBER: 1, COPY_CODE: 1 };

/**
 * The provider's mix rules: at most two URL buttons, one phone number and one copy code; quick
 * replies kept together, before or after the other buttons, never between them.
 */
function checkButtonMix(buttons: readonly { type: string }[], path: string): void {
  const counts = new Map<string, number>();
  for (const button of buttons) counts.set(button.type, (counts.get(button.type) ?? 0) + 1);
  for (const [type, max] of Object.entries(MAX_BUTTONS_OF_TYPE)) {
    const count = counts.get(type) ?? 0;
    if (count > max) {
      throw invalid(`${path}.buttons`, `at most ${max} ${type} button(s), ${count} given`);
    }
  }
  // Runs of quick replies and of other buttons: more than two runs means one kind is split.
  const runs = buttons.filter(
    (button, index) =>
      index === 0 ||
      (button.type === 'QUICK_REPLY') !== (buttons[index - 1]!.type === 'QUICK_REPLY'),
  ).length;
  if (runs > 2) {
    throw invalid(
      `${path}.buttons`,
      'quick reply buttons must be grouped together, before or after the other buttons',
    );
  }
}

/** createTemplate: placeholders in order, an example for each, media headers with a handle. */
export function checkTemplateCreation(request: CreateTemplateRequest): void {
  const format = request.parameter_format;
  request.components.forEach((component, index) => {
    const path = `components.${index}`;
    switch (component.type) {
      case 'HEADER': {
        if (component.format === 'TEXT') {
          if (!component.text) throw invalid(`${path}.text`, 'a TEXT header needs its text');
          const names = placeholdersOf(component.text);
          if (names.length > 1)
            throw invalid(`${path}.text`, 'a header holds at most one placeholder');
          checkPlaceholders(names, format, `${path}.text`);
          const examples =
            format === 'NAMED'
              ? component.example?.header_text_named_params
              : component.example?.header_text;
          if (names.length === 1 && !(Array.isArray(examples) && examples.length === 1)) {
            throw invalid(`${path}.example`, 'the header placeholder needs one example');
          }
        } else if (component.format !== 'LOCATION') {
          if (!stringList(component.example?.header_handle)) {
            throw invalid(
              `${path}.example.header_handle`,
              `a ${component.format} header needs a handle from uploadTemplateMedia`,
            );
          }
        }
        return;
      }
      case 'BODY': {
        const names = placeholdersOf(component.text);
        checkPlaceholders(names, format, `${path}.text`);
        if (names.length === 0) return;
        if (format === 'NAMED') {
          const given = component.example?.body_text_named_params;
          const named = Array.isArray(given)
            ? new Set(given.map((item) => (item as { param_name?: unknown })?.param_name))
            : new Set();
          const missing = names.filter((name) => !named.has(name));
          if (missing.length > 0) {
            throw invalid(
              `${path}.example.body_text_named_params`,
              `examples missing for ${missing.map((name) => `{{${name}}}`).join(', ')}`,
            );
          }
          return;
        }
        const rows = component.example?.body_text;
        const first = Array.isArray(rows) ? rows[0] : undefined;
        if (!stringList(first) || first.length !== names.length) {
          throw invalid(
            `${path}.example.body_text`,
            `one example per placeholder is needed (${names.length}), as [["…", "…"]]`,
          );
        }
        return;
      }
      case 'BUTTONS':
        checkButtonMix(component.buttons, path);
        component.buttons.forEach((button, buttonIndex) => {
          if (button.type !== 'URL') return;
          const names = placeholdersOf(button.url);
          const buttonPath = `${path}.buttons.${buttonIndex}`;
          if (names.length > 1)
            throw invalid(`${buttonPath}.url`, 'a URL holds at most one placeholder');
          if (names.length === 1 && !button.url.trimEnd().endsWith('}}')) {
            throw invalid(`${buttonPath}.url`, 'the placeholder must be at the end of the URL');
          }
          if (names.length === 1 && !stringList(button.example)) {
            throw invalid(`${buttonPath}.example`, 'the URL placeholder needs an example');
          }
        });
        return;
      default:
        return;
    }
  });
}

type Loose = Record<string, unknown>;

interface Expected {
  header?: { format: string; count: number };
  body: string[];
  /** Buttons whose send must (url with a placeholder) or may (quick reply) carry a parameter. */
  buttons: { index: number; subType: 'url' | 'quick_reply' | 'copy_code'; required: boolean }[];
}

function expectedParameters(components: Loose[]): Expected {
  const expected: Expected = { body: [], buttons: [] };
  for (const component of components) {
    const type = String(component.type ?? '').toUpperCase();
    if (type === 'HEADER') {
      const format = String(component.format ?? 'TEXT').toUpperCase();
      expected.header = {
        format,
        count: format === 'TEXT' ? placeholdersOf(component.text as string).length : 1,
      };
      if (format === 'LOCATION') expected.header.count = 1;
    }
    if (type === 'BODY') expected.body = placeholdersOf(component.text as string);
    if (type === 'BUTTONS' && Array.isArray(component.buttons)) {
      (component.buttons as Loose[]).forEach((button, index) => {
        const kind = String(button.type ?? '').toUpperCase();
        if (kind === 'URL') {
          const count = placeholdersOf(button.url as string).length;
          if (count > 0) expected.buttons.push({ index, subType: 'url', required: true });
        } else if (kind === 'QUICK_REPLY') {
          expected.buttons.push({ index, subType: 'quick_reply', required: false });
        } else if (kind === 'COPY_CODE') {
          expected.buttons.push({ index, subType: 'copy_code', required: true });
        }
      });
    }
  }
  return expected;
}

const parametersOf = (component: Loose | undefined): Loose[] =>
  Array.isArray(component?.parameters) ? (component.parameters as Loose[]) : [];

const MEDIA_HEADER_TYPE: Record<string, string> = {
  IMAGE: 'image',
  VIDEO: 'video',
  DOCUMENT: 'document',
  LOCATION: 'location',
};

/**
 * sendtemplatemessage: the parameters given for each component fit the stored template's
 * placeholders (count per component, names for NAMED templates, button index and type), so the
 * provider is never asked to send what it would refuse with 132000.
 */
export function checkTemplateParameters(
  template: { name: string; parameter_format: 'POSITIONAL' | 'NAMED'; components: Loose[] },
  sent: Loose[],
): void {
  const expected = expectedParameters(template.components);
  const byType = (type: string) =>
    sent.filter((component) => String(component.type ?? '').toLowerCase() === type);
  const fail = (message: string) =>
    new AppError('validation_failed', `components: ${message} (template ${template.name})`);

  const unknown = sent.find(
    (component) =>
      !['header', 'body', 'button'].includes(String(component.type ?? '').toLowerCase()),
  );
  if (unknown) throw fail(`unknown component type "${String(unknown.type)}"`);
  for (const type of ['header', 'body']) {
    if (byType(type).length > 1) throw fail(`only one ${type} component may be given`);
  }

  const header = byType('header')[0];
  const headerParams = parametersOf(header);
  const headerCount = expected.header?.count ?? 0;
  if (headerParams.length !== headerCount) {
    throw fail(`the header takes ${headerCount} parameter(s), ${headerParams.length} given`);
  }
  const mediaType = expected.header ? MEDIA_HEADER_TYPE[expected.header.format] : undefined;
  if (mediaType && headerParams[0]?.type !== mediaType) {
    throw fail(`the header takes a ${mediaType} parameter`);
  }

  const bodyParams = parametersOf(byType('body')[0]);
  if (bodyParams.length !== expected.body.length) {
    throw fail(`the body takes ${expected.body.length} parameter(s), ${bodyParams.length} given`);
  }
  if (template.parameter_format === 'NAMED') {
    const given = new Set(bodyParams.map((parameter) => parameter.parameter_name));
    const missing = expected.body.filter((name) => !given.has(name));
    if (missing.length > 0) {
      throw fail(`the body has no parameter_name ${missing.join(', ')}`);
    }
  }

  const seen = new Set<number>();
  for (const button of byType('button')) {
    const index = Number(button.index);
    const subType = String(button.sub_type ?? '').toLowerCase();
    const slot = expected.buttons.find((candidate) => candidate.index === index);
    if (!Number.isInteger(index) || !slot) {
      throw fail(`button index ${String(button.index)} has no parameter in the template`);
    }
    if (slot.subType !== subType) {
      throw fail(`button ${index} is a ${slot.subType} button, not ${subType || 'unnamed'}`);
    }
    if (seen.has(index)) throw fail(`button ${index} is given twice`);
    seen.add(index);
    if (parametersOf(button).length !== 1) throw fail(`button ${index} takes one parameter`);
  }
  const missing = expected.buttons.filter((slot) => slot.required && !seen.has(slot.index));
  if (missing.length > 0) {
    throw fail(`button ${missing.map((slot) => slot.index).join(', ')} needs a parameter`);
  }
}
