import { ERROR_CODES, type ErrorCode } from '@switchboard/contracts';
import type { StoredMessage } from '../../data-access/message-store';
import type { ProviderFailure } from '../../outbound/provider-failure';

/**
 * The answer to a send, as the API gives it. It is stored with the idempotency key, status and
 * all, so that a request repeated with the key is answered exactly as the first was.
 */
export interface SendAnswer {
  http_status: number;
  body: Record<string, unknown>;
  replayed: boolean;
}

/**
 * The error code the API reports for each way the provider can fail a send, answered with that
 * code's HTTP status, except that a request the provider found invalid or about something it
 * does not know (its 400 or 404) is the caller's to fix: 422, with the code still
 * `provider_error`.
 */
function errorOf(failure: ProviderFailure): { code: ErrorCode; http_status: number } {
  const code: ErrorCode =
    failure.kind === 'throttled'
      ? 'rate_limited'
      : failure.kind === 'unavailable'
        ? 'dependency_unavailable'
        : 'provider_error';
  const callersToFix =
    code === 'provider_error' && (failure.httpStatus === 400 || failure.httpStatus === 404);
  return { code, http_status: callersToFix ? 422 : ERROR_CODES[code] };
}

export function failureAnswer(messageId: number, failure: ProviderFailure): SendAnswer {
  const { code, http_status } = errorOf(failure);
  return {
    http_status,
    body: { status: 'error', message: failure.message, code, message_id: messageId },
    replayed: false,
  };
}

export const sentAnswer = (messageId: number, wamid: string): SendAnswer => ({
  http_status: 200,
  body: { status: 'success', message_id: messageId, message_wamid: wamid },
  replayed: false,
});

/** The answer a finished message stands for, when its first answer was never recorded. */
export function answerOf(message: StoredMessage): SendAnswer {
  if (message.status === 'failed') {
    return {
      http_status: ERROR_CODES.provider_error,
      body: {
        status: 'error',
        message: message.error ?? 'The provider refused the message',
        code: 'provider_error',
        message_id: message.id,
      },
      replayed: true,
    };
  }
  return { ...sentAnswer(message.id, message.wamid), replayed: true };
}
