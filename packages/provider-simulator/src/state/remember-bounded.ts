/** The logs (`sent`, `webhooks`) keep the newest entries only, so a long demo or benchmark stays small. */
export const LOG_LIMIT = 20_000;

export function rememberBounded<T>(list: T[], item: T, limit = LOG_LIMIT): void {
  list.push(item);
  if (list.length > limit) list.splice(0, list.length - limit);
}
