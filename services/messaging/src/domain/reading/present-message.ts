import type { MessageView, StatusTimes } from '@switchboard/contracts';
import { hasRealWamid, type StoredMessage } from '../../data-access/message-store';

const iso = (value: Date | string | undefined) =>
  value === undefined ? null : new Date(value).toISOString();

export function statusTimesOf(message: StoredMessage): StatusTimes {
  const times = message.status_times ?? {};
  return {
    sent: iso(times.sent),
    delivered: iso(times.delivered),
    read: iso(times.read),
    failed: iso(times.failed),
  };
}

export function presentMessage(message: StoredMessage): MessageView {
  const wamid = hasRealWamid(message) ? message.wamid : null;
  return {
    message_id: message.id,
    message_wamid: wamid,
    contact_id: message.contact_id,
    id: message.id,
    wamid,
    phone: message.phone,
    direction: message.direction,
    type: message.type,
    message: message.message,
    status: message.status,
    error: message.error ?? null,
    campaign_id: message.campaign_id ?? null,
    sent_by_agent_id: message.sent_by_agent_id ?? null,
    created_at: new Date(message.created_at).toISOString(),
    status_times: statusTimesOf(message),
    ...(message.media ? { media: message.media } : {}),
    ...(message.phone_number_id ? { phone_number_id: message.phone_number_id } : {}),
  };
}
