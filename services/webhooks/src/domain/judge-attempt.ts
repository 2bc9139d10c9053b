import type { DeliveryLogState } from '@switchboard/contracts';
import type { AttemptResult } from '../outbound/webhook-http-client';

export interface Verdict {
  state: DeliveryLogState;
  /** The receiver answered 410 Gone: the webhook is paused. */
  gone: boolean;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
}

/**
 * The published delivery rules: any 2xx acknowledges; 5xx, a connection error or a timeout is retried while
 * attempts are left; everything else (3xx, 4xx, a blocked address) fails at once. 410 Gone
 * also pauses the webhook, as Standard Webhooks asks.
 */
export function judgeAttempt(
  result: Exclude<AttemptResult, { kind: 'circuit_open' }>,
  attemptsLeft: boolean,
): Verdict {
  const retryOrFail: DeliveryLogState = attemptsLeft ? 'retrying' : 'failed';
  if (result.kind === 'failure') {
    return {
      state: result.failure === 'blocked' ? 'failed' : retryOrFail,
      gone: false,
      response_status: null,
      response_body: null,
      error: result.message,
      duration_ms: result.durationMs,
    };
  }
  const { status } = result;
  const answered = {
    response_status: status,
    response_body: result.body,
    duration_ms: result.durationMs,
  };
  const withNote = (text: string | null) =>
    result.note ? (text ? `${text}; ${result.note}` : result.note) : text;
  if (status >= 200 && status < 300) {
    return { state: 'succeeded', gone: false, ...answered, error: withNote(null) };
  }
  if (status === 410) {
    const error = withNote('receiver answered 410 Gone: the webhook was paused');
    return { state: 'failed', gone: true, ...answered, error };
  }
  if (status >= 500) {
    return {
      state: retryOrFail,
      gone: false,
      ...answered,
      error: withNote(`receiver answered ${status}`),
    };
  }
  const why =
    status >= 300 && status < 400
      ? `receiver answered ${status}: redirects are not followed`
      : `receiver answered ${status}`;
  return { state: 'failed', gone: false, ...answered, error: withNote(why) };
}
