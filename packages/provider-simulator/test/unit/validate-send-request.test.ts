import { GraphError } from '../../src/domain/graph-error';
import type { SendLookups } from '../../src/domain/messages/validate-send-request';
import { validateSendRequest } from '../../src/domain/messages/validate-send-request';
import type { TemplateRecord } from '../../src/state/records';

const template = (overrides: Partial<TemplateRecord> = {}): TemplateRecord => ({
  id: '1000000000000001',
  waba_id: '1',
  name: 'order_update',
  language: 'en_US',
  category: 'UTILITY',
  parameter_format: 'POSITIONAL',
  components: [
    { type: 'HEADER', format: 'IMAGE' },
    { type: 'BODY', text: 'Hi {{1}}, order {{2}} is ready.' },
    { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://x.test/{{1}}' }] },
  ],
  status: 'APPROVED',
  rejected_reason: 'NONE',
  created_at: 0,
  ...overrides,
});

const lookups = (templates: TemplateRecord[] = [template()]): SendLookups => ({
  findTemplates: (name) => templates.filter((t) => t.name === name),
  findMedia: () => undefined,
});

const base = { messaging_product: 'whatsapp', to: '+16505551234' };

function errorOf(body: unknown, given = lookups()): GraphError {
  try {
    validateSendRequest(body, given);
  } catch (error) {
    if (error instanceof GraphError) return error;
    throw error;
  }
  throw new Error('expected a GraphError');
}

const fullTemplateSend = (bodyParameters: unknown[]) => ({
  ...base,
  type: 'template',
  template: {
    name: 'order_update',
    language: { code: 'en_US' },
    components: [
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://x.test/a.jpg' } }] },
      { type: 'body', parameters: bodyParameters },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'abc' }] },
    ],
  },
});

describe('validating a send request', () => {
  it('when type is absent, then the message is a text (Meta default) and wa_id is digits', () => {
    const result = validateSendRequest({ ...base, text: { body: 'hi' } }, lookups());

    expect(result).toEqual({
      kind: 'message',
      to: '+16505551234',
      waId: '16505551234',
      type: 'text',
    });
  });

  it('when the text body is 4097 characters, then 100', () => {
    expect(errorOf({ ...base, type: 'text', text: { body: 'a'.repeat(4097) } }).code).toBe(100);
  });

  it('when length is counted, then an emoji counts as one character', () => {
    expect(() =>
      validateSendRequest({ ...base, type: 'text', text: { body: '👍'.repeat(4096) } }, lookups()),
    ).not.toThrow();
  });

  it('when the type is unknown, then 100 in Graph enum wording', () => {
    const error = errorOf({ ...base, type: 'fax', fax: {} });

    expect(error.code).toBe(100);
    expect(error.details).toMatch(
      /^Param type must be one of \{AUDIO, CONTACTS, .*\} - got "fax"\.$/,
    );
  });

  it('when messaging_product is something else, then 100', () => {
    expect(errorOf({ ...base, messaging_product: 'sms', text: { body: 'x' } }).code).toBe(100);
  });

  it('when there are zero or four reply buttons, then 131009', () => {
    const withButtons = (n: number) => ({
      ...base,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'b' },
        action: {
          buttons: Array.from({ length: n }, (_, i) => ({
            type: 'reply',
            reply: { id: `${i}`, title: `t${i}` },
          })),
        },
      },
    });

    expect(errorOf(withButtons(0)).code).toBe(131009);
    expect(errorOf(withButtons(4)).code).toBe(131009);
  });

  it('when a complete template send fits the template, then the template is returned', () => {
    const result = validateSendRequest(
      fullTemplateSend([
        { type: 'text', text: 'Ann' },
        { type: 'text', text: 'A-1' },
      ]),
      lookups(),
    );

    expect(result).toMatchObject({
      kind: 'message',
      type: 'template',
      template: { name: 'order_update' },
    });
  });

  it('when a body parameter is missing, then 132000', () => {
    expect(errorOf(fullTemplateSend([{ type: 'text', text: 'Ann' }])).code).toBe(132000);
  });

  it('when the image header parameter is missing, then 132012', () => {
    const body = fullTemplateSend([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ]);
    body.template.components.shift();

    expect(errorOf(body).code).toBe(132012);
  });

  it('when the dynamic URL button gets no parameter, then 132000', () => {
    const body = fullTemplateSend([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ]);
    body.template.components.pop();

    expect(errorOf(body).code).toBe(132000);
  });

  it('when the hydrated body is longer than 1024, then 132005', () => {
    const long = fullTemplateSend([
      { type: 'text', text: 'a'.repeat(1020) },
      { type: 'text', text: 'b' },
    ]);

    expect(errorOf(long).code).toBe(132005);
  });

  it('when the template is pending, paused or disabled, then 132001, 132015, 132016', () => {
    const send = fullTemplateSend([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ]);

    expect(errorOf(send, lookups([template({ status: 'PENDING' })])).code).toBe(132001);
    expect(errorOf(send, lookups([template({ status: 'PAUSED' })])).code).toBe(132015);
    expect(errorOf(send, lookups([template({ status: 'DISABLED' })])).code).toBe(132016);
  });

  it('when 132001 is raised, then its HTTP status is 404 as in the error table', () => {
    expect(errorOf(fullTemplateSend([]), lookups([])).httpStatus).toBe(404);
  });

  it('when a read receipt is sent, then it validates as mark_read', () => {
    expect(
      validateSendRequest(
        { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.ABC' },
        lookups(),
      ),
    ).toEqual({ kind: 'mark_read', messageId: 'wamid.ABC' });
  });

  it('when contacts are sent without formatted_name, then 131008', () => {
    expect(errorOf({ ...base, type: 'contacts', contacts: [{ name: {} }] }).code).toBe(131008);
  });
});
