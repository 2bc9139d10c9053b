// URL shapes checked as patterns by validation and stated in the OpenAPI document alike, so both
// refuse the same URLs. Plain ASCII host names whose last label starts with a letter (a name
// ending in a number is read as an IPv4 address by URL parsers), or an IP address.
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const LAST_LABEL = '[A-Za-z_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
// Numeric and bracketed IPv6 hosts pass here so that the URL policy can name them as private.
const IP = `(?:${OCTET}\\.){3}${OCTET}|[0-9]{1,10}|\\[[0-9A-Fa-f:.]{2,45}\\]`;
const HOST = `(?:(?:${LABEL}\\.)*${LAST_LABEL}|${IP})`;
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
const REST = `${HOST}(?::${PORT})?(?:[/?#][!-~]*)?$`;

/** An http or https URL with a host name. */
export const HTTP_URL_PATTERN = `^https?://${REST}`;
export const HTTP_URL = new RegExp(HTTP_URL_PATTERN);

/** An https URL: what webhook receivers and AI endpoints must be unless a flag allows plain http. */
export const HTTPS_URL_PATTERN = `^https://${REST}`;
