/**
 * How automated replies compare texts: case- and accent-insensitive, with
 * punctuation ignored, computed in code because the local database has no collation
 * (ARCHITECTURE §11). Letters lose their diacritics (NFKD, combining marks dropped), everything
 * is lowercased, punctuation and spacing become single spaces. "¡Hola, José!" → "hola jose". Symbols such as emoji
 * are kept.
 */
export function normalizeForMatching(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[\p{P}\p{Z}\s]+/gu, ' ')
    .trim();
}

/** The whole message is the trigger. Both sides normalized. */
export const isExactMatch = (message: string, trigger: string): boolean =>
  trigger !== '' && message === trigger;

/** The trigger appears in the message as whole words ("price" in "the price?", not in "prices"). */
export const containsWords = (message: string, trigger: string): boolean =>
  trigger !== '' && ` ${message} `.includes(` ${trigger} `);
