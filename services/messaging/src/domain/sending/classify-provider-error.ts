/**
 * Which provider failures are worth trying again (cloud-api.md §2): throughput and transient
 * server errors are; anything about the request, the recipient or the account is not.
 */
const RETRYABLE_CODES = new Set([1, 2, 4, 80007, 130429, 131000, 131016, 131057, 133004]);

export interface ProviderFailure {
  /** The text stored with the failed message and shown to the customer. */
  message: string;
  code: number | null;
  httpStatus: number | null;
  retryable: boolean;
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
  const retryable =
    code !== null ? RETRYABLE_CODES.has(code) : httpStatus >= 500 || httpStatus === 429;
  return { message, code, httpStatus, retryable };
}

export function unreachableFailure(reason: string): ProviderFailure {
  return {
    message: `Provider unreachable: ${reason}`,
    code: null,
    httpStatus: null,
    retryable: true,
  };
}
