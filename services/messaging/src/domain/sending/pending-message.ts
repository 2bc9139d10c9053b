import { pendingWamid, type StoredMessage } from '../../data-access/message-store';
import { callbackDataOf } from '../message-events';
import { buildProviderMessage, previewOf } from './build-provider-message';
import type { PreparedSend } from './prepare-send';
import type { SendRequest } from './send-types';

/**
 * The message a prepared send stores before the provider is called: pending, leased to this
 * attempt, with the provider's request body it will send.
 */
export function pendingMessage(
  id: number,
  request: SendRequest,
  { channel, contact, content, place }: PreparedSend,
  leaseMs: number,
  now: Date,
): StoredMessage {
  const body: Record<string, unknown> = {
    ...buildProviderMessage(contact.phone, content),
    // Echoed in the provider's status webhooks: if this process dies after the provider
    // accepted the message but before storing that, the `sent` status still finds it.
    biz_opaque_callback_data: callbackDataOf({
      id,
      contact_id: contact.id,
      campaign_id: request.campaign_id ?? null,
    }),
  };
  return {
    _id: String(id),
    id,
    company_id: request.organization.company_id,
    contact_id: contact.id,
    phone: contact.phone,
    direction: 'outbound',
    type: String(body.type),
    message: previewOf(content),
    wamid: pendingWamid(id),
    status: 'pending',
    error: null,
    status_times: {},
    history: [],
    statuses_seen: [],
    request_json: JSON.stringify(body),
    raw_json: null,
    idempotency_key: request.idempotency?.key ?? null,
    ...(request.idempotency?.scope === 'command' ? { via_command: true } : {}),
    campaign_id: request.campaign_id ?? null,
    phone_number_id: channel.phone_number_id,
    sent_by_agent_id: request.sent_by_agent_id ?? null,
    quota_month: place.month,
    lease_until: new Date(now.getTime() + leaseMs),
    created_at: now,
    updated_at: now,
    pending_events: {},
    pending_ids: [],
  };
}
