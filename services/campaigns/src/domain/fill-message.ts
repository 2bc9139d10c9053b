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

type ContactFields = Pick<Contact, 'name' | 'phone' | 'email' | 'custom'>;

/**
 * Named placeholders of automated replies (issue 8): `{{name}}`, `{{phone}}`, `{{email}}` and
 * `{{custom.<key>}}`, from the contact, through the same lookup as a campaign's `{field}`
 * variables. A field the contact lacks becomes empty text: an answer is never held back for it.
 * Anything else between braces is left as written.
 */
export function fillContactPlaceholders(text: string, contact: ContactFields): string {
  return text.replace(
    /\{\{\s*(name|phone|email|custom\.[A-Za-z0-9 _-]{1,64}?)\s*\}\}/g,
    (_whole, field: string) => {
      const result = valueOf({ field }, contact, {});
      return 'value' in result ? result.value : '';
    },
  );
}

/** A text message with every text part's placeholders filled from the contact. */
export function fillTextContent(
  content: Extract<SendContentInput, { type: 'text' }>,
  contact: ContactFields,
): Extract<SendContentInput, { type: 'text' }> {
  return {
    ...content,
    message: fillContactPlaceholders(content.message, contact),
    ...(content.header ? { header: fillContactPlaceholders(content.header, contact) } : {}),
    ...(content.footer ? { footer: fillContactPlaceholders(content.footer, contact) } : {}),
  };
}
