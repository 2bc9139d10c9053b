import type { TemplateView } from '@switchboard/contracts';

/** The highest `{{n}}` of a text: how many variables it needs. */
export const placeholderCount = (text: string) =>
  Math.max(0, ...[...text.matchAll(/\{\{(\d+)\}\}/g)].map((match) => Number(match[1])));

export function templateBody(template: TemplateView | undefined): string {
  const body = template?.components.find(
    (component) => String(component.type).toUpperCase() === 'BODY',
  );
  return typeof body?.text === 'string' ? body.text : '';
}
