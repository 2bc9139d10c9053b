import { z } from 'zod';

/**
 * A list as API users and form posts give it: an array, a JSON text of an array, or a
 * comma-separated string whose parts are trimmed (with `dropEmpty`, empty parts are left out, as
 * keyword lists want: `"hello, hi,"`). `list` judges the result and names what it must be.
 */
export function listInput<T extends z.ZodType>(list: T, options: { dropEmpty?: boolean } = {}) {
  return z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    const trimmed = value.trim();
    if (trimmed.startsWith('[')) {
      try {
        return JSON.parse(trimmed) as unknown;
      } catch {
        return value;
      }
    }
    if (trimmed === '') return [];
    const parts = trimmed.split(',').map((part) => part.trim());
    return options.dropEmpty ? parts.filter((part) => part !== '') : parts;
  }, list);
}
