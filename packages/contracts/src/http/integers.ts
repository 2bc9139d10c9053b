import { z } from 'zod';

export const POSITIVE_INTEGER = 'must be a positive integer';

/** Ids and counts stay within 15 digits, where a JSON number is still exact. */
export const MAX_POSITIVE_INTEGER = 999_999_999_999_999;

/** A positive integer, as a JSON number or a decimal string (what forms and queries send). */
export const PositiveIntegerSchema = z
  .union(
    [
      z
        .number()
        .int({ error: POSITIVE_INTEGER })
        .min(1, { error: POSITIVE_INTEGER })
        .max(MAX_POSITIVE_INTEGER, { error: 'is too large' }),
      z
        .string()
        .regex(/^0*[1-9][0-9]{0,14}$/, { error: POSITIVE_INTEGER })
        .transform(Number),
    ],
    { error: POSITIVE_INTEGER },
  )
  .pipe(z.number());

/** Decimal text of 1..max (leading zeros allowed), spelled as a pattern the document can carry. */
function upToPattern(max: number): RegExp {
  const digits = String(max);
  const parts = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  for (let i = 0; i < digits.length; i += 1) {
    const low = i === 0 ? 1 : 0;
    const digit = Number(digits[i]);
    if (digit > low) {
      parts.push(`${digits.slice(0, i)}[${low}-${digit - 1}][0-9]{${digits.length - i - 1}}`);
    }
  }
  parts.push(digits);
  return new RegExp(`^0*(?:${parts.join('|')})$`);
}

/** A positive integer of at most `max` (a page size), with the bound in the document too. */
export function positiveIntegerUpTo(max: number) {
  const tooLarge = `must be at most ${max}`;
  return z
    .union(
      [
        z
          .number()
          .int({ error: POSITIVE_INTEGER })
          .min(1, { error: POSITIVE_INTEGER })
          .max(max, { error: tooLarge }),
        z
          .string()
          .regex(/^0*[1-9][0-9]{0,14}$/, { error: POSITIVE_INTEGER, abort: true })
          .regex(upToPattern(max), { error: tooLarge })
          .transform(Number),
      ],
      // The branch that got as far as the bound names it; anything else is not a positive integer.
      {
        error: (issue) => (JSON.stringify(issue).includes(tooLarge) ? tooLarge : POSITIVE_INTEGER),
      },
    )
    .pipe(z.number());
}
