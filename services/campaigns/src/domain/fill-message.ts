import type {
  CampaignMessage,
  Contact,
  SendContentInput,
  VariableSource,
} from '@switchboard/contracts';

/** The value of one placeholder, or the path that has none. */
function valueOf(
  source: VariableSource,
  contact: Pick<Contact, 'name' | 'phone' | 'email' | 'custom'> | null,
  data: Record<string, unknown>,
): { value: string } | { missing: string } {
  if ('value' in source) return { value: source.value };
  if ('field' in source) {
    const field = source.field;
    const raw = field.startsWith('custom.')
      ? contact?.custom?.[field.slice('custom.'.length)]
      : contact?.[field as 'name' | 'phone' | 'email'];
    return raw === undefined || raw === null || raw === ''
      ? { missing: `contact.${field}` }
      : { value: String(raw) };
  }
  let node: unknown = data;
  for (const part of source.data.split('.')) {
    node =
      node !== null && typeof node === 'object'
        ? (node as Record<string, unknown>)[part]
        : undefined;
  }
  return node === undefined || node === null || node === '' || typeof node === 'object'
    ? { missing: `data.${source.data}` }
    : { value: String(node) };
}

/** Every placeholder's value in order, or every path that has none. */
export function fillVariables(
  sources: VariableSource[],
  contact: Pick<Contact, 'name' | 'phone' | 'email' | 'custom'> | null,
  data: Record<string, unknown> = {},
): { values: string[] } | { missing: string[] } {
  const values: string[] = [];
  const missing: string[] = [];
  for (const source of sources) {
    const result = valueOf(source, contact, data);
    if ('value' in result) values.push(result.value);
    else missing.push(result.missing);
  }
  // One path may fill several placeholders (a template's header and its URL button).
  return missing.length > 0 ? { missing: [...new Set(missing)] } : { values };
}

const fillText = (text: string, values: string[]): string =>
  text.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => values[Number(n) - 1] ?? whole);

/**
 * The content messaging sends: texts filled in; for a template, `values` are those of
 * `placeholderSources` (contracts) in its order: body, then header, then URL buttons.
 */
export function contentFor(message: CampaignMessage, values: string[]): SendContentInput {
  if (message.type === 'template') {
    const buttons = message.button_variables ?? [];
    const bodyCount = values.length - buttons.length - (message.header_variable ? 1 : 0);
    const text = (value: string) => ({ type: 'text', text: value });
    const header = message.header_media
      ? [
          {
            type: message.header_media.type,
            [message.header_media.type]: { link: message.header_media.link },
          },
        ]
      : message.header_variable
        ? [text(values[bodyCount]!)]
        : [];
    const components = [
      ...(header.length > 0 ? [{ type: 'header', parameters: header }] : []),
      ...(bodyCount > 0
        ? [{ type: 'body', parameters: values.slice(0, bodyCount).map(text) }]
        : []),
      ...buttons.map((button, i) => ({
        type: 'button',
        sub_type: 'url',
        index: String(button.index),
        parameters: [text(values[values.length - buttons.length + i]!)],
      })),
    ];
    return {
      type: 'template',
      template_name: message.template_name,
      template_language: message.template_language,
      components,
    };
  }
  return {
    type: 'text',
    message: fillText(message.text, values),
    ...(message.header ? { header: fillText(message.header, values) } : {}),
    ...(message.footer ? { footer: fillText(message.footer, values) } : {}),
    ...(message.buttons ? { buttons: message.buttons } : {}),
    ...(message.image ? { image: message.image } : {}),
  };
}

type ContactFields = Pick<Contact, 'name' | 'phone' | 'email' | 'custom'>;

const NAMED_PLACEHOLDER =
  /\{\{\s*(name|phone|email|reply|custom\.[A-Za-z0-9_][A-Za-z0-9_ -]{0,63}?)\s*\}\}/g;

/** Named placeholders filled, each one the contact (or `reply`) lacks left empty and listed. */
function fillNamed(
  text: string,
  contact: ContactFields,
  reply?: string,
): { text: string; missing: string[] } {
  const missing: string[] = [];
  const filled = text.replace(NAMED_PLACEHOLDER, (_whole, field: string) => {
    if (field === 'reply') {
      if (reply === undefined) missing.push('reply');
      return reply ?? '';
    }
    const result = valueOf({ field }, contact, {});
    if ('value' in result) return result.value;
    missing.push(result.missing);
    return '';
  });
  return { text: filled, missing };
}

/**
 * Fills `{{name}}`, `{{phone}}`, `{{email}}` and `{{custom.<key>}}` from the contact, and
 * `{{reply}}` from `reply` (a flow's last inbound text); other braces stay as written. A value the
 * contact lacks makes the text unfillable: every such path is returned instead (flows end the
 * session rather than send a broken step).
 */
export function fillContactPlaceholders(
  text: string,
  contact: ContactFields,
  reply?: string,
): { text: string } | { missing: string[] } {
  const { text: filled, missing } = fillNamed(text, contact, reply);
  return missing.length > 0 ? { missing } : { text: filled };
}

/**
 * An automated reply's text parts with their named placeholders filled from the contact; a field
 * the contact lacks becomes empty text: an answer is never held back for it.
 */
export function fillTextContent(
  content: Extract<SendContentInput, { type: 'text' }>,
  contact: ContactFields,
): Extract<SendContentInput, { type: 'text' }> {
  const fill = (text: string) => fillNamed(text, contact).text;
  return {
    ...content,
    message: fill(content.message),
    ...(content.header ? { header: fill(content.header) } : {}),
    ...(content.footer ? { footer: fill(content.footer) } : {}),
  };
}
