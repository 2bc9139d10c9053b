import { z } from 'zod';
import { ROUTING_KEYS } from './broker-topology';

/**
 * The provider's webhook, read loosely: only the envelope is checked, each change's `value`
 * stays as the provider sent it (it grows new fields without notice, as the Cloud API documents it).
 */
export const ProviderWebhookSchema = z.object({
  object: z.string(),
  entry: z.array(
    z.object({
      id: z.string(),
      time: z.number().optional(),
      changes: z.array(z.object({ field: z.string(), value: z.record(z.string(), z.unknown()) })),
    }),
  ),
});
export type ProviderWebhook = z.infer<typeof ProviderWebhookSchema>;

export type ProviderRoutingKey = (typeof ROUTING_KEYS.provider)[keyof typeof ROUTING_KEYS.provider];

/** One broker message per change (per kind within a `messages` change), inbound → messaging on `svc.provider`. */
export const ProviderEventMessageSchema = z.object({
  /** Deterministic per inbound event and change, so a replay of the same webhook dedupes. */
  id: z.string().min(1),
  company_id: z.number().int().positive(),
  inbound_event_id: z.string().min(1),
  waba_id: z.string(),
  field: z.string(),
  value: z.record(z.string(), z.unknown()),
  received_at: z.iso.datetime({ offset: true }),
});
export type ProviderEventMessage = z.infer<typeof ProviderEventMessageSchema>;

/** The most statuses one batch message carries. */
export const PROVIDER_STATUS_BATCH_MAX = 100;

/**
 * Several provider statuses in one broker message, on `provider.status` like a single one:
 * inbound publishes the statuses of the webhooks it stored together as one message (each a
 * whole `ProviderEventMessage`, in arrival order), because every broker message is a quorum
 * queue's log write. A lone status still travels as a plain `ProviderEventMessage`, which is
 * also what inbound published before batches existed: the consumer reads both.
 */
export const ProviderStatusBatchMessageSchema = z.object({
  /** The batch's own id (a consumer's retries count by it); each status keeps its own. */
  id: z.string().min(1),
  statuses: z.array(ProviderEventMessageSchema).min(1).max(PROVIDER_STATUS_BATCH_MAX),
});
export type ProviderStatusBatchMessage = z.infer<typeof ProviderStatusBatchMessageSchema>;

/** What `messaging.provider-events` carries: one provider event, or a batch of statuses. */
export const ProviderQueueMessageSchema = z.union([
  ProviderEventMessageSchema,
  ProviderStatusBatchMessageSchema,
]);
export type ProviderQueueMessage = z.infer<typeof ProviderQueueMessageSchema>;

/** The provider events of a message from `messaging.provider-events`, in order. */
export const providerEventsOf = (message: ProviderQueueMessage): ProviderEventMessage[] =>
  'statuses' in message ? message.statuses : [message];

const FIELD_ROUTES: Record<string, ProviderRoutingKey> = {
  account_update: ROUTING_KEYS.provider.accountUpdate,
  account_review_update: ROUTING_KEYS.provider.accountUpdate,
  phone_number_name_update: ROUTING_KEYS.provider.phoneNumberNameUpdate,
  message_template_status_update: ROUTING_KEYS.provider.templateStatus,
  message_template_quality_update: ROUTING_KEYS.provider.templateStatus,
  template_category_update: ROUTING_KEYS.provider.templateStatus,
  phone_number_quality_update: ROUTING_KEYS.provider.accountUpdate,
};

/**
 * Where one change goes: a `messages` change may carry inbound messages, statuses or both, and
 * each kind travels on its own key (with the other kind's array removed); unknown fields → none.
 */
export function routeProviderChange(
  field: string,
  value: Record<string, unknown>,
): { routingKey: ProviderRoutingKey; value: Record<string, unknown> }[] {
  if (field === 'messages') {
    const routes: { routingKey: ProviderRoutingKey; value: Record<string, unknown> }[] = [];
    const { messages, statuses, ...rest } = value;
    if (Array.isArray(messages) && messages.length > 0) {
      routes.push({ routingKey: ROUTING_KEYS.provider.message, value: { ...rest, messages } });
    }
    if (Array.isArray(statuses) && statuses.length > 0) {
      routes.push({ routingKey: ROUTING_KEYS.provider.status, value: { ...rest, statuses } });
    }
    return routes;
  }
  const routingKey = FIELD_ROUTES[field];
  return routingKey ? [{ routingKey, value }] : [];
}
