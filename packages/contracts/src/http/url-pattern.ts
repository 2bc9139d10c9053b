// URL shapes checked as patterns by validation and stated in the OpenAPI document alike, so both
// refuse the same URLs. Plain ASCII host names whose last label starts with a letter (a name
// ending in a number is read as an IPv4 address by URL parsers), or a dotted IPv4 address.
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const LAST_LABEL = '[A-Za-z_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const HOST = `(?:(?:${LABEL}\\.)*${LAST_LABEL}|(?:${OCTET}\\.){3}${OCTET})`;
const REST = `${HOST}(?::[0-9]{1,4})?(?:[/?#][!-~]*)?$`;

/** An http or https URL with a host name. */
export const HTTP_URL_PATTERN = `^https?://${REST}`;
export const HTTP_URL = new RegExp(HTTP_URL_PATTERN);

/** An https URL: what webhook receivers and AI endpoints must be unless a flag allows plain http. */
export const HTTPS_URL_PATTERN = `^https://${REST}`;
