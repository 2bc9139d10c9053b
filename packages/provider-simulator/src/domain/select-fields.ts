import { GraphError } from './graph-error';

/**
 * Graph's `?fields=a,b,c`: the requested fields in that order, `id` always last, defaults when
 * none are asked for, and Graph's error for a field the node does not have.
 */
export function selectFields(
  available: Record<string, unknown>,
  requested: string | undefined,
  defaults: string[],
  nodeType: string,
): Record<string, unknown> {
  const names = parseFields(requested) ?? defaults;
  const result: Record<string, unknown> = {};
  for (const name of names) {
    if (!(name in available)) {
      throw new GraphError(100, {
        message: `(#100) Tried accessing nonexisting field (${name}) on node type (${nodeType})`,
        details: `Tried accessing nonexisting field (${name}) on node type (${nodeType})`,
      });
    }
    if (name !== 'id' && available[name] !== undefined) result[name] = available[name];
  }
  result.id = available.id;
  return result;
}

export function parseFields(requested: string | undefined): string[] | undefined {
  if (requested === undefined) return undefined;
  const names = requested
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length > 0 ? names : undefined;
}
