import { randomUUID } from 'node:crypto';
import type { EventName } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { StoredDelivery, StoredDeliveryLog } from '../data-access/delivery-store';
import type { StoredWebhook } from '../data-access/webhook-store';
import { deliveryMessage, sendAttempt, settleAttempt, type DeliveryDeps } from './attempt-delivery';
import { getWebhook } from './manage-webhooks';
import { sampleEnvelope } from './sample-events';

const clock = (deps: DeliveryDeps) => (deps.now ?? (() => new Date()))();

/** A delivery of its own (a test, a redelivery), stored with its payload. */
function newDelivery(
  fields: Pick<StoredDelivery, '_id' | 'event_id' | 'event' | 'payload' | 'kind'>,
  webhook: StoredWebhook,
  now: Date,
): StoredDelivery {
  return {
    ...fields,
    webhook_id: webhook._id,
    company_id: webhook.company_id,
    generation: webhook.generation,
    created_at: now,
  };
}

function assertActive(webhook: StoredWebhook): void {
  if (!webhook.active) {
    throw new AppError('conflict', `Webhook ${webhook._id} is paused; activate it first`);
  }
}

/**
 * `POST /{id}/test`: a sample of one subscribed event, delivered now and answered with the
 * attempt. It is a delivery like any other: logged, retried on a 5xx or connection error, and
 * given the same timeout as every delivery.
 */
export async function sendTestDelivery(
  deps: DeliveryDeps,
  companyId: number,
  id: number,
  requested: EventName | undefined,
): Promise<{ log: StoredDeliveryLog; payload: string }> {
  const webhook = await getWebhook(deps, companyId, id);
  assertActive(webhook);
  const event = requested ?? webhook.events[0]!;
  if (!webhook.events.includes(event)) {
    throw new AppError('validation_failed', `event: webhook ${id} does not subscribe to ${event}`);
  }
  const now = clock(deps);
  const delivery = newDelivery(
    {
      _id: randomUUID(),
      event_id: randomUUID(),
      event,
      payload: JSON.stringify(sampleEnvelope(event, companyId, now)),
      kind: 'test',
    },
    webhook,
    now,
  );
  await deps.deliveries.insert(delivery);
  const result = await sendAttempt(deps, delivery, webhook, {
    timeoutMs: deps.timeoutMs,
    bypassBreaker: true,
  });
  if (result.kind === 'circuit_open') throw new Error('a test attempt never meets the breaker');
  const log = await settleAttempt(deps, delivery, webhook, 1, result);
  return { log, payload: delivery.payload };
}

/** A fresh delivery of a logged one: the same bytes and `X-Webhook-Id`, a new set of attempts. */
export async function redeliver(
  deps: DeliveryDeps,
  companyId: number,
  id: number,
  logId: string,
): Promise<StoredDelivery> {
  const webhook = await getWebhook(deps, companyId, id);
  const log = await deps.deliveries.findLog(webhook._id, logId);
  if (!log) throw new AppError('not_found', `Delivery log ${logId} not found`);
  assertActive(webhook);
  const original = await deps.deliveries.findSent(log);
  if (!original) throw new AppError('not_found', `Delivery ${log.delivery_id} is no longer kept`);
  const delivery = newDelivery(
    {
      _id: randomUUID(),
      event_id: original.event_id,
      event: original.event,
      payload: original.payload,
      kind: 'redelivery',
    },
    webhook,
    clock(deps),
  );
  await deps.deliveries.insert(delivery);
  await deps.queue.enqueue(deliveryMessage(delivery, 1));
  return delivery;
}
