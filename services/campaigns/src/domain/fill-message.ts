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

/** Every placeholder's value in order, or every path that has none (issue 7 point 3). */
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
  return missing.length > 0 ? { missing } : { values };
}

const fillText = (text: string, values: string[]): string =>
  text.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => values[Number(n) - 1] ?? whole);

/** The content messaging sends: texts filled in, a template's body parameters in order. */
export function contentFor(message: CampaignMessage, values: string[]): SendContentInput {
  if (message.type === 'template') {
    return {
      type: 'template',
      template_name: message.template_name,
      template_language: message.template_language,
      components:
        values.length > 0
          ? [{ type: 'body', parameters: values.map((text) => ({ type: 'text', text })) }]
          : [],
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

const NAMED_PLACEHOLDER =
  /\{\{\s*(name|phone|email|reply|custom\.[A-Za-z0-9_][A-Za-z0-9_ -]{0,63}?)\s*\}\}/g;

/**
 * Fills `{{name}}`, `{{phone}}`, `{{email}}` and `{{custom.<key>}}` from the contact, and
 * `{{reply}}` from `reply` (a flow's last inbound text); other braces stay as written. A value the
 * contact lacks makes the text unfillable: every such path is returned instead.
 */
export function fillContactPlaceholders(
  text: string,
  contact: Pick<Contact, 'name' | 'phone' | 'email' | 'custom'>,
  reply?: string,
): { text: string } | { missing: string[] } {
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
  return missing.length > 0 ? { missing } : { text: filled };
}
