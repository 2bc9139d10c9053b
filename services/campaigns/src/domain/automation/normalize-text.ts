/**
 * The form in which inbound text is compared with triggers and keywords: accents and case
 * dropped (NFKD, combining marks removed), punctuation and runs of white space turned into one
 * space, nothing at either end. So `¡Hola, Señor!` and `hola senor` compare equal, and words stay
 * words for a whole-word match. Symbols such as emoji are kept.
 */
export function normalize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\p{P}\s]+/gu, ' ')
    .trim();
}

/** True when `text` holds `phrase` as whole words (both already normalized). */
export function containsWords(text: string, phrase: string): boolean {
  return phrase !== '' && ` ${text} `.includes(` ${phrase} `);
}
