import { z } from 'zod';

/** Machine-readable error codes and the HTTP status each one answers with (ARCHITECTURE §3). */
export const ERROR_CODES = {
  invalid_token: 401,
  invalid_credentials: 401,
  not_signed_in: 401,
  malformed_json: 400,
  validation_failed: 422,
  outside_service_window: 422,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  quota_exceeded: 429,
  rate_limited: 429,
  not_implemented: 501,
  dependency_unavailable: 503,
  provider_error: 502,
  internal_error: 500,
  forbidden: 403,
  payload_too_large: 413,
  /** A send to a contact who opted out, outside a reply to them (or a marketing template). */
  contact_unsubscribed: 422,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The published error messages: every quota error message starts with these words. */
export const QUOTA_MESSAGE_PREFIX = 'You have exceeded the limit';

/** The published error messages: the exact message of an invalid-token error. */
export const INVALID_TOKEN_MESSAGE = 'Invalid token';

/** Some errors add what a client can act on beside the three fields (`unknown_events`, …). */
export const ErrorResponseSchema = z.looseObject({
  status: z.literal('error'),
  message: z.string(),
  code: z.string(),
});
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

/** A success envelope (the published REST API): `status: "success"` plus the operation's own keys. */
export function successResponse<S extends z.ZodRawShape>(shape: S) {
  return z.object({ status: z.literal('success'), ...shape });
}
