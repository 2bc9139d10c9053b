/**
 * What never goes into a span: credentials that travel in URLs. HTTP spans record the path and
 * query of every request; these are blanked first.
 */
export const REDACTED = 'REDACTED';

/** The API token (spec: `?token=` on GET), access tokens, the provider's verify token. */
export const SECRET_QUERY_PARAMS = ['token', 'access_token', 'hub.verify_token'];

/** Path segments that are secrets: the inbound webhook token, and its lookup in messaging. */
const SECRET_PATH_SEGMENTS = [
  /(\/webhook\/svc\/receive\/)[^/?#]+/i,
  /(\/by-inbound-token\/)[^/?#]+/i,
];

export function redactPath(path: string): string {
  return SECRET_PATH_SEGMENTS.reduce(
    (redacted, pattern) => redacted.replace(pattern, `$1${REDACTED}`),
    path,
  );
}

/** A path with its query (`/a/b?x=1`) with secret segments and secret parameters blanked. */
export function redactPathAndQuery(pathAndQuery: string): string {
  const at = pathAndQuery.indexOf('?');
  const path = redactPath(at < 0 ? pathAndQuery : pathAndQuery.slice(0, at));
  if (at < 0) return path;
  const params = new URLSearchParams(pathAndQuery.slice(at + 1));
  for (const name of SECRET_QUERY_PARAMS) if (params.has(name)) params.set(name, REDACTED);
  return `${path}?${params.toString()}`;
}

/** True when the path carries a secret segment (its span attributes need overriding). */
export function hasSecretPath(path: string): boolean {
  return redactPath(path) !== path;
}
