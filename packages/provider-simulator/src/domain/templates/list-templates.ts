import type { TemplateRecord } from '../../state/records';
import { invalidParameter } from '../graph-error';
import { selectFields } from '../select-fields';

export const DEFAULT_TEMPLATE_FIELDS = [
  'name',
  'parameter_format',
  'components',
  'language',
  'status',
  'category',
  'id',
];

export function describeTemplate(
  template: TemplateRecord,
  fields: string | undefined,
  defaults = DEFAULT_TEMPLATE_FIELDS,
): Record<string, unknown> {
  const available: Record<string, unknown> = {
    id: template.id,
    name: template.name,
    status: template.status,
    category: template.category,
    sub_category: template.sub_category,
    language: template.language,
    parameter_format: template.parameter_format,
    components: template.components,
    rejected_reason: template.rejected_reason,
    quality_score: { score: 'UNKNOWN' },
    previous_category: undefined,
  };
  return selectFields(available, fields, defaults, 'WhatsAppMessageTemplate');
}

export interface TemplateListQuery {
  fields?: string;
  limit?: string;
  after?: string;
  before?: string;
  name?: string;
  status?: string;
  category?: string;
  language?: string;
}

const encodeCursor = (position: number): string =>
  Buffer.from(`p:${position}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const position = Number(text.slice(2));
  if (!text.startsWith('p:') || !Number.isInteger(position) || position < 0) {
    throw invalidParameter(`Param after/before is not a valid cursor - got "${cursor}".`);
  }
  return position;
}

/**
 * `GET /{waba_id}/message_templates`: newest first; `name` matches part of the name, `status`,
 * `category` and `language` match exactly (case-insensitively); `limit` (default 25, at most 1000)
 * with `before`/`after` cursors and `next`/`previous` links.
 */
export function listTemplates(
  templates: TemplateRecord[],
  query: TemplateListQuery,
  pageUrl: URL,
): Record<string, unknown> {
  const same = (a: string | undefined, b: string): boolean =>
    a === undefined || a.toLowerCase() === b.toLowerCase();
  const matching = templates
    .filter(
      (t) =>
        (query.name === undefined || t.name.includes(query.name.toLowerCase())) &&
        same(query.status, t.status) &&
        same(query.category, t.category) &&
        same(query.language, t.language),
    )
    .sort((a, b) => b.created_at - a.created_at || b.id.localeCompare(a.id));
  const limit = query.limit === undefined ? 25 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw invalidParameter(
      `Param limit must be an integer between 1 and 1000 - got "${query.limit}".`,
    );
  }
  let start = 0;
  if (query.after !== undefined) start = decodeCursor(query.after) + 1;
  else if (query.before !== undefined) start = Math.max(0, decodeCursor(query.before) - limit);
  const page = matching.slice(start, start + limit);
  const data = page.map((t) => describeTemplate(t, query.fields));
  if (page.length === 0) return { data };

  const end = start + page.length - 1;
  const link = (cursorName: 'after' | 'before', position: number): string => {
    const url = new URL(pageUrl);
    url.searchParams.delete('after');
    url.searchParams.delete('before');
    url.searchParams.set('limit', String(limit));
    url.searchParams.set(cursorName, encodeCursor(position));
    return url.toString();
  };
  return {
    data,
    paging: {
      cursors: { before: encodeCursor(start), after: encodeCursor(end) },
      ...(start > 0 && { previous: link('before', start) }),
      ...(end < matching.length - 1 && { next: link('after', end) }),
    },
  };
}
