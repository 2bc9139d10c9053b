/**
 * Which provider failures are worth trying again (as the Cloud API documents it): throughput and transient
 * server errors are; anything about the request, the recipient or the account is not.
 */
const THROTTLING_CODES = new Set([4, 80007, 130429]);
const TRANSIENT_CODES = new Set([1, 2, 131000, 131016, 131057, 133004]);

/**
 * `refused`: the provider answered no (final); `throttled`: over a rate limit; `unavailable`:
 * it could not answer (5xx, timeout, unreachable, breaker open). The last two are retried.
 */
export type ProviderFailureKind = 'refused' | 'throttled' | 'unavailable';

export interface ProviderFailure {
  /** The text stored with the failed message and shown to the customer. */
  message: string;
  code: number | null;
  httpStatus: number | null;
  retryable: boolean;
  kind: ProviderFailureKind;
}

interface GraphError {
  error?: {
    message?: string;
    code?: number;
    error_data?: { details?: string };
  };
}

export function classifyProviderResponse(httpStatus: number, body: unknown): ProviderFailure {
  const error = (body as GraphError | undefined)?.error;
  const code = typeof error?.code === 'number' ? error.code : null;
  const details = error?.error_data?.details;
  const message =
    [error?.message, details].filter(Boolean).join(': ') || `Provider answered HTTP ${httpStatus}`;
  let kind: ProviderFailureKind;
  if (code !== null) {
    kind = THROTTLING_CODES.has(code)
      ? 'throttled'
      : TRANSIENT_CODES.has(code)
        ? 'unavailable'
        : 'refused';
  } else {
    kind = httpStatus === 429 ? 'throttled' : httpStatus >= 500 ? 'unavailable' : 'refused';
  }
  return { message, code, httpStatus, retryable: kind !== 'refused', kind };
}

/** No usable answer at all: connection refused, timeout, or the channel's breaker open. */
export function unreachableFailure(reason: string, cause = 'unreachable'): ProviderFailure {
  return {
    message: `Provider unavailable (${cause}): ${reason}`,
    code: null,
    httpStatus: null,
    retryable: true,
    kind: 'unavailable',
  };
}

/** This channel already has `limit` calls waiting on its provider: throttled here, retried later. */
export function busyChannelFailure(limit: number): ProviderFailure {
  return {
    message: `Too many calls to this channel's provider are in progress (${limit}); try again shortly`,
    code: null,
    httpStatus: null,
    retryable: true,
    kind: 'throttled',
  };
}
