import type { DeliveryLog, Webhook } from '@switchboard/contracts';
import type { StoredDeliveryLog } from '../data-access/delivery-store';
import { RetrySchedule } from './retry-schedule';
import type { WebhookView } from './manage-webhooks';
import { maskSecret } from './webhook-secret';

export function presentWebhook({ webhook, secret }: WebhookView): Webhook {
  return {
    id: webhook._id,
    name: webhook.name,
    url: webhook.url,
    events: webhook.events,
    active: webhook.active,
    secret: secret ?? maskSecret(webhook.secret_last4),
    created_at: webhook.created_at.toISOString(),
    updated_at: webhook.updated_at.toISOString(),
  };
}

export function presentLog(row: StoredDeliveryLog, payload: string): DeliveryLog {
  return {
    id: row._id,
    delivery_id: row.delivery_id,
    event_id: row.event_id,
    event: row.event,
    payload: JSON.parse(payload) as DeliveryLog['payload'],
    response_status: row.response_status,
    response_body: row.response_body,
    error: row.error,
    attempt: RetrySchedule.label(row.attempt, row.max_attempts),
    state: row.state,
    created_at: row.created_at.toISOString(),
    duration_ms: row.duration_ms,
  };
}
