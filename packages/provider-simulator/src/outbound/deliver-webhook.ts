import http from 'node:http';
import https from 'node:https';
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
    const answer = await post(record, ctx.options.webhookTimeoutMs, ctx.scheduler.signal);
    return {
      at,
      status: answer.status,
      response_body: answer.body.slice(0, RESPONSE_BODY_LIMIT),
      duration_ms: Date.now() - startedAt,
    };
  } catch (error) {
    return { at, error: describeFailure(error), duration_ms: Date.now() - startedAt };
  }
}

/**
 * Kept-alive connections to the receivers. A send brings three status webhooks, so this is the
 * simulator's busiest call: on node:http it costs about a third less CPU than it did on `fetch`
 * (whose request and stream objects and composite abort signal per webhook were most of the
 * simulator's work), on a box where the simulator shares the cores with what it stands in front
 * of (docs/benchmarks.md, "The simulator's webhooks on node:http").
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

class WebhookTimeout extends Error {}

/**
 * One POST of the signed bytes: never follows a redirect (a 3xx is an answer, not success),
 * gives up after `timeoutMs` in all, or when the simulator is reset or stopped (`signal`).
 */
function post(
  record: WebhookRecord,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(record.url);
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as keyof typeof agents],
        signal,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(record.raw_body),
          'x-hub-signature-256': record.signature,
          'user-agent': 'facebookexternalua',
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size >= RESPONSE_BODY_LIMIT) return;
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
        });
        response.on('error', reject);
      },
    );
    const timer = setTimeout(() => request.destroy(new WebhookTimeout('timeout')), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(record.raw_body);
  });
}

function describeFailure(error: unknown): string {
  if (error instanceof WebhookTimeout) return 'timeout';
  return error instanceof Error ? error.message : String(error);
}
