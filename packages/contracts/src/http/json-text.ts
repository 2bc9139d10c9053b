/**
 * Form posts carry structured fields as text: a string holding JSON is read as that JSON, and
 * anything else is left for the schema to judge (and name in its error).
 */
export function fromJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
