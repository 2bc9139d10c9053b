import type { WebhookDeliveryMessage } from '@switchboard/contracts';
import type { Logger, SecretBox } from '@switchboard/service-kit';
import {
  logIdFor,
  type DeliveryStore,
  type StoredDelivery,
  type StoredDeliveryLog,
} from '../data-access/delivery-store';
import type { StoredWebhook, WebhookStore } from '../data-access/webhook-store';
import type { AttemptResult, WebhookHttpClient } from '../outbound/webhook-http-client';
import type { EndpointGate } from './endpoint-gate';
import { judgeAttempt, type Verdict } from './judge-attempt';
import type { RetrySchedule, RetryStep } from './retry-schedule';
import { deliveryHeaders } from './sign-payload';

/** Publishes delivery messages; both resolve only once the broker has confirmed. */
export interface DeliveryQueue {
  enqueue(message: WebhookDeliveryMessage): Promise<void>;
  delay(message: WebhookDeliveryMessage, step: RetryStep): Promise<void>;
}

export interface DeliveryDeps {
  deliveries: DeliveryStore;
  webhooks: WebhookStore;
  queue: DeliveryQueue;
  http: Pick<WebhookHttpClient, 'send' | 'isCircuitOpen'>;
  gate: EndpointGate;
  secrets: SecretBox;
  schedule: RetrySchedule;
  timeoutMs: number;
  maxPostponements: number;
  logger: Logger;
  now?: () => Date;
  /**
   * This process's attempts under way, by `<delivery>:<attempt>`. A message that may repeat
   * another waits for the same attempt under way here, then finds it logged: after a replica
   * dies, its retry and the one its redelivered message publishes again expire together on the
   * survivor, which would otherwise make both.
   */
  attemptsUnderWay?: Map<string, Promise<unknown>>;
}

/** What an attempt needs of its delivery: carried by its message, or read from the store. */
export type DeliveryRef = Pick<
  StoredDelivery,
  '_id' | 'webhook_id' | 'company_id' | 'event_id' | 'event' | 'payload' | 'generation'
>;

const clock = (deps: Pick<DeliveryDeps, 'now'>) => (deps.now ?? (() => new Date()))();
const endpointKey = (webhookId: number) => String(webhookId);

/**
 * The delivery consumer: one message, at most one attempt, every outcome logged. An open breaker
 * puts the attempt off before any database work; a busy or slow endpoint puts it off too. An
 * attempt that is logged already is a duplicate and is dropped; a crash mid-attempt repeats it
 * (at least once, with the same X-Webhook-Id).
 */
export async function processDeliveryMessage(
  deps: DeliveryDeps,
  message: WebhookDeliveryMessage,
  /** The broker redelivered this message, or the handler runs it again after an error. */
  handledBefore = false,
): Promise<void> {
  const key = endpointKey(message.webhook_id);
  const mayPostpone = message.postponed < deps.maxPostponements;
  if (mayPostpone && deps.http.isCircuitOpen(key)) return postpone(deps, message);
  // The same attempt under way in this process makes this message a copy: it waits for that one,
  // then finds it logged. Registered before any wait, so two copies arriving together see it.
  const attemptKey = `${message.delivery_id}:${message.attempt}`;
  const underWay = deps.attemptsUnderWay;
  const earlier = underWay?.get(attemptKey);
  const handling = (async () => {
    if (earlier) await earlier.catch(() => undefined);
    await handleDeliveryMessage(
      deps,
      message,
      message.possibly_duplicate || handledBefore || earlier !== undefined,
    );
  })();
  underWay?.set(attemptKey, handling);
  try {
    await handling;
  } finally {
    if (underWay?.get(attemptKey) === handling) underWay.delete(attemptKey);
  }
}

async function handleDeliveryMessage(
  deps: DeliveryDeps,
  message: WebhookDeliveryMessage,
  /** This message may repeat another: the log, the record of attempts, is asked first. */
  suspect: boolean,
): Promise<void> {
  const key = endpointKey(message.webhook_id);
  const mayPostpone = message.postponed < deps.maxPostponements;
  const [webhook, done] = suspect
    ? await Promise.all([
        deps.webhooks.findById(message.webhook_id),
        deps.deliveries.attemptLogged(message.delivery_id, message.attempt),
      ])
    : [await deps.webhooks.findById(message.webhook_id), false];
  // Gone with its deleted webhook, or this attempt made already.
  if (!webhook || done) return;
  const delivery: DeliveryRef = {
    _id: message.delivery_id,
    webhook_id: webhook._id,
    company_id: webhook.company_id,
    event_id: message.event_id,
    event: message.event,
    payload: message.payload,
    generation: message.generation,
  };
  if (!webhook.active || webhook.generation !== delivery.generation) {
    await logCancelled(deps, delivery, message.attempt);
    return;
  }
  // The slot is held for the request alone, so the endpoint's own speed is what is judged.
  const leave = await deps.gate.enter(key, !mayPostpone);
  if (!leave) return postpone(deps, message);
  let result: AttemptResult;
  try {
    result = await sendAttempt(deps, delivery, webhook, {
      timeoutMs: deps.timeoutMs,
      bypassBreaker: !mayPostpone,
    });
  } finally {
    leave();
  }
  if (result.kind === 'circuit_open') return postpone(deps, message);
  await settleAttempt(deps, delivery, webhook, message.attempt, result, suspect);
}

/** One HTTP attempt: the stored bytes, signed with the webhook's current secret. */
export function sendAttempt(
  deps: Pick<DeliveryDeps, 'http' | 'secrets' | 'now'>,
  delivery: DeliveryRef,
  webhook: StoredWebhook,
  options: { timeoutMs: number; bypassBreaker: boolean },
): Promise<AttemptResult> {
  const body = Buffer.from(delivery.payload, 'utf8');
  const headers = deliveryHeaders({
    secret: deps.secrets.open(webhook.secret_sealed),
    messageId: delivery.event_id,
    event: delivery.event,
    body,
    now: clock(deps),
  });
  return deps.http.send({
    endpoint: endpointKey(webhook._id),
    url: webhook.url,
    headers,
    body,
    timeoutMs: options.timeoutMs,
    bypassBreaker: options.bypassBreaker,
  });
}

/**
 * Publishes the next attempt when this one is to be retried, then logs this one. In that order,
 * so a crash between the two repeats the attempt rather than losing the retry.
 */
export async function settleAttempt(
  deps: DeliveryDeps,
  delivery: DeliveryRef,
  webhook: StoredWebhook,
  attempt: number,
  result: Exclude<AttemptResult, { kind: 'circuit_open' }>,
  suspect = false,
): Promise<StoredDeliveryLog> {
  const verdict = judgeAttempt(result, deps.schedule.hasAttemptAfter(attempt));
  if (verdict.gone) {
    const paused = await deps.webhooks.pauseGeneration(webhook, clock(deps));
    if (paused)
      deps.logger.warn({ webhookId: webhook._id }, 'receiver answered 410; webhook paused');
  }
  if (verdict.state === 'retrying') {
    const next = attempt + 1;
    await deps.queue.delay(
      { ...deliveryMessage(delivery, next), possibly_duplicate: suspect },
      deps.schedule.stepBefore(next),
    );
  }
  return logAttempt(deps, delivery, attempt, verdict);
}

/** A paused webhook receives nothing: a pending delivery stops here, and the log says so. */
function logCancelled(deps: DeliveryDeps, delivery: DeliveryRef, attempt: number) {
  return logAttempt(deps, delivery, attempt, {
    state: 'failed',
    gone: false,
    response_status: null,
    response_body: null,
    error: 'Not attempted: the webhook was paused, which stops its pending deliveries',
    duration_ms: null,
  });
}

async function logAttempt(
  deps: DeliveryDeps,
  delivery: DeliveryRef,
  attempt: number,
  verdict: Verdict,
): Promise<StoredDeliveryLog> {
  const { gone: _gone, ...outcome } = verdict;
  const row = {
    webhook_id: delivery.webhook_id,
    company_id: delivery.company_id,
    delivery_id: delivery._id,
    event_id: delivery.event_id,
    event: delivery.event,
    attempt,
    max_attempts: deps.schedule.maxAttempts,
    ...outcome,
    created_at: clock(deps),
  };
  const stored = await deps.deliveries.insertLog(row);
  if (stored) {
    // Deleted during the attempt: its logs went with it, so this one goes too.
    if (!(await deps.webhooks.findById(delivery.webhook_id))) {
      await deps.deliveries.deleteLog(stored._id);
    }
    return stored;
  }
  deps.logger.info({ deliveryId: delivery._id, attempt }, 'attempt made twice; first log kept');
  const first = await deps.deliveries.findLog(delivery.webhook_id, logIdFor(delivery._id, attempt));
  return first ?? { _id: logIdFor(delivery._id, attempt), ...row };
}

/** The message for attempt `attempt` of a delivery. */
export function deliveryMessage(delivery: DeliveryRef, attempt: number): WebhookDeliveryMessage {
  return {
    delivery_id: delivery._id,
    webhook_id: delivery.webhook_id,
    attempt,
    event_id: delivery.event_id,
    event: delivery.event,
    payload: delivery.payload,
    generation: delivery.generation,
    postponed: 0,
    possibly_duplicate: false,
  };
}

/** The attempt is not spent: the message goes round the shortest retry queue. */
function postpone(deps: DeliveryDeps, message: WebhookDeliveryMessage): Promise<void> {
  return deps.queue.delay(
    { ...message, postponed: message.postponed + 1 },
    deps.schedule.postponeStep,
  );
}
