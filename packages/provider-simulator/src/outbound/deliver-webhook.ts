import type { PostWebhookInput, SimulatorContext } from '../simulator-context';
import type { WebhookAttempt, WebhookRecord } from '../state/records';
import { rememberBounded } from '../state/remember-bounded';
import { serializeWebhookBody, signPayload } from './sign-payload';

const RESPONSE_BODY_LIMIT = 4096;

type DeliveryContext = Pick<SimulatorContext, 'state' | 'options' | 'scheduler' | 'log'>;

/**
 * Posts a webhook the way Meta does: the same signed bytes on every attempt, success only on
 * HTTP 200, retries after `webhookRetryDelaysMs` (Meta's hours scaled down to seconds), then
 * given up. A receiver that is down never makes this throw.
 */
export async function deliverWebhook(
  ctx: DeliveryContext,
  input: PostWebhookInput,
): Promise<WebhookRecord> {
  const rawBody = serializeWebhookBody(input.payload);
  const record: WebhookRecord = {
    id: ctx.state.nextSequence(),
    created_at: new Date().toISOString(),
    url: input.target.url,
    field: input.field,
    waba_id: input.wabaId,
    ...(input.phoneNumberId !== undefined && { phone_number_id: input.phoneNumberId }),
    payload: input.payload,
    raw_body: rawBody,
    signature: signPayload(input.target.appSecret, rawBody),
    state: 'pending',
    attempts: [],
  };
  rememberBounded(ctx.state.webhooks, record);

  const waits = [0, ...ctx.options.webhookRetryDelaysMs];
  for (const wait of waits) {
    if (!(await ctx.scheduler.sleep(wait))) {
      // The simulator was reset or stopped: give up quietly.
      record.state = 'failed';
      return record;
    }
    const attempt = await attemptDelivery(ctx, record);
    record.attempts.push(attempt);
    if (attempt.status === 200) {
      record.state = 'delivered';
      return record;
    }
  }
  record.state = 'failed';
  const last = record.attempts.at(-1);
  ctx.log.warn('webhook not delivered', {
    url: record.url,
    field: record.field,
    attempts: record.attempts.length,
    last_status: last?.status,
    last_error: last?.error,
  });
  return record;
}

async function attemptDelivery(
  ctx: DeliveryContext,
  record: WebhookRecord,
): Promise<WebhookAttempt> {
  const startedAt = Date.now();
  const at = new Date(startedAt).toISOString();
  try {
    const response = await fetch(record.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': record.signature,
        'user-agent': 'facebookexternalua',
      },
      body: record.raw_body,
      redirect: 'manual',
      signal: AbortSignal.any([
        ctx.scheduler.signal,
        AbortSignal.timeout(ctx.options.webhookTimeoutMs),
      ]),
    });
    const text = await response.text();
    return {
      at,
      status: response.status,
      response_body: text.slice(0, RESPONSE_BODY_LIMIT),
      duration_ms: Date.now() - startedAt,
    };
  } catch (error) {
    return { at, error: describeFetchError(error), duration_ms: Date.now() - startedAt };
  }
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    if (error.name === 'TimeoutError') return 'timeout';
    if (cause instanceof Error) return `${error.message}: ${cause.message}`;
    return error.message;
  }
  return String(error);
}
