// URL shapes the OpenAPI document states as patterns, so that it refuses what validation refuses.
// Plain ASCII host labels: what `new URL()` reads the same everywhere.
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const REST = `${LABEL}(?:\\.${LABEL})*(?::[0-9]{1,4})?(?:[/?#][!-~]*)?$`;

/** An http or https URL with a host name. */
export const HTTP_URL_PATTERN = `^https?://${REST}`;

/** An https URL with a host name: webhook receivers (plain http only where a flag allows it). */
export const HTTPS_URL_PATTERN = `^https://${REST}`;
