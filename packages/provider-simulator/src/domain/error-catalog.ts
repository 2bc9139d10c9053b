/**
 * Cloud API error codes the simulator can answer with: title and HTTP status as Meta's
 * error-code table gives them (reference §2), plus the default `error_data.details` text.
 */
export interface ErrorCodeInfo {
  title: string;
  httpStatus: number;
  details?: string;
}

const CATALOG: Record<number, ErrorCodeInfo> = {
  0: { title: 'AuthException', httpStatus: 401 },
  1: { title: 'An unknown error occurred', httpStatus: 400 },
  2: { title: 'Service temporarily unavailable', httpStatus: 503 },
  3: { title: 'Application does not have the capability to make this API call.', httpStatus: 500 },
  4: { title: 'Application request limit reached', httpStatus: 400 },
  10: { title: 'Application does not have permission for this action', httpStatus: 403 },
  100: { title: 'Invalid parameter', httpStatus: 400 },
  190: { title: 'Invalid OAuth access token - Cannot parse access token', httpStatus: 401 },
  200: { title: 'Permissions error', httpStatus: 403 },
  368: { title: 'Temporarily blocked for policies violations', httpStatus: 403 },
  2500: { title: 'Unknown path components', httpStatus: 400 },
  80007: { title: 'Rate limit issues', httpStatus: 400 },
  130429: {
    title: 'Rate limit hit',
    httpStatus: 400,
    details: 'Cloud API message throughput has been reached.',
  },
  130497: {
    title: 'Business account is restricted from messaging users in this country.',
    httpStatus: 403,
  },
  131000: { title: 'Something went wrong', httpStatus: 500 },
  131005: { title: 'Access denied', httpStatus: 403 },
  131008: { title: 'Required parameter is missing', httpStatus: 400 },
  131009: { title: 'Parameter value is not valid', httpStatus: 400 },
  131016: { title: 'Service unavailable', httpStatus: 500 },
  131021: {
    title: 'Recipient cannot be sender',
    httpStatus: 400,
    details: 'Sender and recipient phone number is the same.',
  },
  131026: {
    title: 'Message undeliverable',
    httpStatus: 400,
    details: 'Message Undeliverable.',
  },
  131031: { title: 'Business Account locked', httpStatus: 403 },
  131037: {
    title: 'WhatsApp provided number needs display name approval before message can be sent.',
    httpStatus: 400,
  },
  131042: { title: 'Business eligibility payment issue', httpStatus: 400 },
  131045: { title: 'Incorrect certificate', httpStatus: 500 },
  131047: {
    title: 'Re-engagement message',
    httpStatus: 400,
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  },
  131048: { title: 'Spam rate limit hit', httpStatus: 400 },
  131049: {
    title: 'This message was not delivered to maintain healthy ecosystem engagement.',
    httpStatus: 400,
  },
  131050: {
    title:
      'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business',
    httpStatus: 400,
  },
  131051: { title: 'Unsupported message type', httpStatus: 400 },
  131052: { title: 'Media download error', httpStatus: 400 },
  131053: { title: 'Media upload error', httpStatus: 400 },
  131056: {
    title: '(Business Account, Consumer Account) pair rate limit hit',
    httpStatus: 400,
    details:
      'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
  },
  131057: { title: 'Account in maintenance mode', httpStatus: 500 },
  132000: {
    title: 'Number of parameters does not match the expected number of params',
    httpStatus: 400,
  },
  132001: { title: 'Template name does not exist in the translation', httpStatus: 404 },
  132005: { title: 'Translated text too long', httpStatus: 400 },
  132007: { title: 'Format character policy violated', httpStatus: 400 },
  132012: {
    title: 'Parameter format does not match format in the created template',
    httpStatus: 400,
  },
  132015: { title: 'Template is Paused', httpStatus: 400 },
  132016: { title: 'Template is Disabled', httpStatus: 400 },
  133004: { title: 'Server temporarily unavailable', httpStatus: 503 },
  135000: { title: 'Generic user error', httpStatus: 400 },
};

/** Codes without an entry get a generic title and HTTP 400, like most of Meta's table. */
export function describeErrorCode(code: number): ErrorCodeInfo {
  return CATALOG[code] ?? { title: 'Error', httpStatus: 400 };
}

export const ERROR_CODES_HREF =
  'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/';
