/**
 * Which paths the gateway may forward to an owning service. The gateway faces the public and
 * attaches the internal secret to what it forwards, so a path must be checked as the client sent
 * it, before routing: `..`, `.`, backslashes and encoded separators are refused, never resolved,
 * because resolving them is what let `/webhook/svc/receive/..\..\internal\info` reach inbound's
 * internal routes.
 */

/** The public operations' own paths on their owners; nothing else is ever forwarded. */
const FORWARDED_PATHS = [
  /^\/api\/svc\/[^/]+$/,
  /^\/developer\/webhooks(?:\/.*)?$/,
  /^\/webhook\/svc\/receive\/[^/]+$/,
];

/** `%2e` (.), `%2f` (/), `%5c` (\) and `%25` (an encoded `%`, which a second decoding would undo). */
const ENCODED_SEPARATOR = /%(?:2e|2f|5c|25)/i;

/** Whether a raw request path (no query) stays what it says once a URL parser has read it. */
export function isPlainPath(rawPath: string): boolean {
  if (!rawPath.startsWith('/') || rawPath.includes('\\') || ENCODED_SEPARATOR.test(rawPath)) {
    return false;
  }
  if (rawPath.split('/').some((segment) => segment === '.' || segment === '..')) return false;
  try {
    // Whatever a WHATWG parser would still change (tabs, `//host` tricks) is not plain either.
    return new URL(rawPath, 'http://gateway').pathname === rawPath;
  } catch {
    return false;
  }
}

/** Whether the gateway may forward to this path of an owner, with the internal secret. */
export function isForwardablePath(path: string): boolean {
  return isPlainPath(path) && FORWARDED_PATHS.some((pattern) => pattern.test(path));
}

/** The path part of a request target, as sent (no decoding, no normalization). */
export function rawPathOf(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/**
 * The owner's spelling of a public path the router matched case-insensitively under `prefix`:
 * the prefix as the owner routes it, then the rest exactly as the client sent it.
 */
export function ownerPath(prefix: string, rawPath: string): string {
  return prefix + rawPath.slice(prefix.length);
}
