import { GraphError } from '../../src/domain/graph-error';
import { listTemplates } from '../../src/domain/templates/list-templates';
import {
  findPlaceholders,
  hydrate,
  placeholderProblem,
} from '../../src/domain/templates/placeholders';
import { validateTemplateCreation } from '../../src/domain/templates/validate-template-creation';
import type { TemplateRecord } from '../../src/state/records';

describe('template placeholders', () => {
  it('when a body has repeated and named placeholders, then each is found once in order', () => {
    expect(findPlaceholders('{{1}} and {{2}} then {{1}}')).toEqual(['1', '2']);
    expect(findPlaceholders('Hi {{ first_name }}')).toEqual(['first_name']);
  });

  it('when positional placeholders skip a number, then that is a problem', () => {
    expect(placeholderProblem(['1', '3'], 'POSITIONAL')).toMatch(/sequential/);
    expect(placeholderProblem(['2', '1'], 'POSITIONAL')).toBeUndefined();
  });

  it('when values are given, then the text is hydrated', () => {
    expect(
      hydrate(
        'Hi {{1}}, {{2}}',
        new Map([
          ['1', 'Ann'],
          ['2', 'ok'],
        ]),
      ),
    ).toBe('Hi Ann, ok');
  });
});

describe('template creation body', () => {
  const valid = {
    name: 'shipping_update',
    category: 'utility',
    language: 'en_US',
    components: [{ type: 'BODY', text: 'Order {{1}}', example: { body_text: [['A1']] } }],
  };

  it('when the body is valid, then the category is normalized and the format defaults to POSITIONAL', () => {
    expect(validateTemplateCreation(valid)).toMatchObject({
      category: 'UTILITY',
      parameter_format: 'POSITIONAL',
    });
  });

  it.each([
    ['an upper-case name', { name: 'Shipping' }],
    ['no BODY', { components: [{ type: 'FOOTER', text: 'x' }] }],
    [
      'a footer over 60',
      { components: [...valid.components, { type: 'FOOTER', text: 'f'.repeat(61) }] },
    ],
    ['a bad language', { language: 'english' }],
    [
      '11 buttons',
      {
        components: [
          ...valid.components,
          {
            type: 'BUTTONS',
            buttons: Array.from({ length: 11 }, () => ({ type: 'QUICK_REPLY', text: 'x' })),
          },
        ],
      },
    ],
    [
      'a media header without example',
      { components: [{ type: 'HEADER', format: 'IMAGE' }, ...valid.components] },
    ],
  ])('when it has %s, then Graph error 100', (_label, override) => {
    expect(() => validateTemplateCreation({ ...valid, ...override })).toThrow(GraphError);
  });
});

describe('listing templates', () => {
  const records: TemplateRecord[] = Array.from({ length: 5 }, (_, i) => ({
    id: `10000000000000${i}`,
    waba_id: '1',
    name: `t_${i}`,
    language: 'en_US',
    category: 'UTILITY',
    parameter_format: 'POSITIONAL',
    components: [],
    status: i % 2 === 0 ? 'APPROVED' : 'PENDING',
    rejected_reason: 'NONE',
    created_at: i,
  }));
  const url = new URL('http://sim/v23.0/1/message_templates?limit=2');

  it('when paging with after cursors, then every template is seen once, newest first', () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = listTemplates(
        records,
        { limit: '2', fields: 'name', ...(after && { after }) },
        url,
      ) as {
        data: { name: string }[];
        paging?: { cursors: { after: string }; next?: string };
      };
      seen.push(...page.data.map((d) => d.name));
      if (!page.paging?.next) break;
      after = page.paging.cursors.after;
    }
    expect(seen).toEqual(['t_4', 't_3', 't_2', 't_1', 't_0']);
  });

  it('when filtering by status, then the match is case-insensitive', () => {
    const page = listTemplates(records, { status: 'approved', fields: 'name' }, url) as {
      data: unknown[];
    };

    expect(page.data).toHaveLength(3);
  });

  it('when nothing matches, then data is empty and there is no paging', () => {
    expect(listTemplates(records, { name: 'zzz' }, url)).toEqual({ data: [] });
  });
});
