import { errorText } from './api';

/**
 * A refusal's message split by the field it names: the API answers `field: reason` (several
 * joined by `; `), so each reason can be shown under its own input. What names no field known
 * to the form is left in `other`, for an alert beside the form.
 */
export function fieldErrors<Field extends string>(
  error: unknown,
  fields: readonly Field[],
): { byField: Partial<Record<Field, string>>; other: string | null } {
  if (!error) return { byField: {}, other: null };
  const byField: Partial<Record<Field, string>> = {};
  const other: string[] = [];
  for (const part of errorText(error).split('; ')) {
    // `custom.city: reason` keeps the key it is about: `city: reason` under the custom fields.
    const match = /^([A-Za-z_]+)(?:\.([^:]*))?: (.*)$/.exec(part);
    const field = fields.find((known) => known === match?.[1]);
    if (!field || !match) {
      other.push(part);
      continue;
    }
    const reason = match[2] ? `${match[2]}: ${match[3]}` : match[3]!;
    byField[field] = byField[field] ? `${byField[field]}; ${reason}` : reason;
  }
  return { byField, other: other.length ? other.join('; ') : null };
}
