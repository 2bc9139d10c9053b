/** Template variables: positional `{{1}}`, `{{2}}` … or named `{{first_name}}`. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** Distinct placeholder names in order of first appearance. */
export function findPlaceholders(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** Positional placeholders must be exactly 1..n; named ones lowercase letters and underscores. */
export function placeholderProblem(
  names: string[],
  format: 'POSITIONAL' | 'NAMED',
): string | undefined {
  if (format === 'NAMED') {
    const bad = names.find((name) => !/^[a-z_][a-z0-9_]*$/.test(name));
    return bad === undefined
      ? undefined
      : `Named parameter {{${bad}}} must use lowercase letters, digits and underscores.`;
  }
  const numbers = names.map(Number);
  if (numbers.some((n) => !Number.isInteger(n) || n < 1)) {
    return 'Positional parameters must be numbers like {{1}}.';
  }
  const sorted = [...numbers].sort((a, b) => a - b);
  if (sorted.some((n, index) => n !== index + 1)) {
    return 'Positional parameters must be sequential, starting at {{1}}.';
  }
  return undefined;
}

/** The text with each placeholder replaced by its value (by name or by position). */
export function hydrate(text: string, values: Map<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values.get(name) ?? whole);
}
