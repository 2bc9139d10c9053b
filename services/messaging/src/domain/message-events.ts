import { createHash, randomUUID } from 'node:crypto';
import type { BrokerEvent, EventData, EventName } from '@switchboard/contracts';
import type { StoredMessage } from '../data-access/message-store';

/**
 * A UUID that is always the same for the same name (RFC 4122 layout, version 5 bits, SHA-256):
 * an event written twice for one fact (a send finalized twice, a status applied on two replicas)
 * carries one id, so the outbox keeps it once and consumers deduplicate it.
 */
export function stableEventId(namespace: string, name: string): string {
  const bytes = createHash('sha256').update(`${namespace}\n${name}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A broker event (ARCHITECTURE §6) with `data` exactly as the published payloads list it. */
export function brokerEvent<E extends EventName>(
  event: E,
  company_id: number,
  data: EventData<E>,
  now: Date,
  id: string = randomUUID(),
): BrokerEvent {
  return {
    id,
    event,
    timestamp: now.toISOString(),
    company_id,
    data,
  } as BrokerEvent;
}

type Subject = Pick<StoredMessage, 'id' | 'company_id' | 'contact_id' | 'phone'> & {
  campaign_id?: number | null;
  phone_number_id?: string | null;
};

/**
 * What a send puts in `biz_opaque_callback_data`, which the provider echoes in its statuses:
 * `sb:<message id>:<contact id>:<campaign id, 0 for none>`. The message id finds a send whose
 * acceptance was never stored; with the other two a status can be recorded and announced without
 * reading the message first (see recordStatusBatch).
 */
export const callbackDataOf = (
  message: Pick<StoredMessage, 'id' | 'contact_id'> & { campaign_id?: number | null },
): string => `sb:${message.id}:${message.contact_id}:${message.campaign_id ?? 0}`;

/** The message a status's `biz_opaque_callback_data` names, if it is ours (`sb:<id>` before the contact and campaign were added). */
export function callbackSubjectOf(
  value: unknown,
): { id: number; contact_id?: number; campaign_id?: number | null } | undefined {
  const match =
    typeof value === 'string' ? /^sb:(\d{1,15})(?::(\d{1,15}):(\d{1,15}))?$/.exec(value) : null;
  if (!match) return undefined;
  if (match[2] === undefined) return { id: Number(match[1]) };
  const campaign = Number(match[3]);
  return {
    id: Number(match[1]),
    contact_id: Number(match[2]),
    campaign_id: campaign === 0 ? null : campaign,
  };
}

/** The message id a status's `biz_opaque_callback_data` names, if it is ours. */
export const messageIdOfCallbackData = (value: unknown): number | undefined =>
  callbackSubjectOf(value)?.id;

/**
 * A message event carries, outside `data`, the campaign of a campaign's message and the
 * organization's number that sent or received it.
 */
const ofCampaign = (event: BrokerEvent, message: Omit<Subject, 'phone'>): BrokerEvent => ({
  ...event,
  ...(message.campaign_id ? { campaign_id: message.campaign_id } : {}),
  ...(message.phone_number_id ? { phone_number_id: message.phone_number_id } : {}),
});

/** Names the events of one message: `<namespace>` is the messaging database, unique per deployment. */
export type EventIds = (message: Pick<StoredMessage, 'id'>, fact: string) => string;
export const eventIdsIn =
  (namespace: string): EventIds =>
  (message, fact) =>
    stableEventId(namespace, `message:${message.id}:${fact}`);

export const messageSent = (ids: EventIds, message: Subject, wamid: string, now: Date) =>
  ofCampaign(
    brokerEvent(
      'message_sent',
      message.company_id,
      {
        message_id: message.id,
        message_wamid: wamid,
        contact_id: message.contact_id,
        phone: message.phone,
        company_id: message.company_id,
      },
      now,
      ids(message, 'message_sent'),
    ),
    message,
  );

export const messageFailed = (ids: EventIds, message: Subject, error: string, now: Date) =>
  ofCampaign(
    brokerEvent(
      'message_failed',
      message.company_id,
      {
        message_id: message.id,
        contact_id: message.contact_id,
        phone: message.phone,
        error,
        company_id: message.company_id,
      },
      now,
      ids(message, 'message_failed'),
    ),
    message,
  );

export const messageStatusUpdated = (
  ids: EventIds,
  message: Omit<Subject, 'phone'>,
  wamid: string,
  status: 'sent' | 'delivered' | 'read' | 'failed',
  error: string | null,
  now: Date,
) =>
  ofCampaign(
    brokerEvent(
      'message_status_updated',
      message.company_id,
      {
        message_id: message.id,
        message_wamid: wamid,
        status,
        error,
        contact_id: message.contact_id,
        company_id: message.company_id,
      },
      now,
      ids(message, `message_status_updated:${status}`),
    ),
    message,
  );

/**
 * `message_received`; a file's descriptor rides in `data.media` beside the text (see the contract);
 * a button or list reply's id and an echo of the business's own number ride
 * on the envelope outside `data`, which stays as the published payloads list it.
 */
export const messageReceived = (
  ids: EventIds,
  message: Subject &
    Pick<StoredMessage, 'wamid' | 'message' | 'type' | 'media' | 'phone_number_id'>,
  contactName: string,
  now: Date,
  extras: { reply_id?: string; echo?: true; automation_paused?: true } = {},
): BrokerEvent => ({
  ...brokerEvent(
    'message_received',
    message.company_id,
    {
      message_id: message.id,
      message_wamid: message.wamid,
      contact_id: message.contact_id,
      contact_name: contactName,
      phone: message.phone,
      message: message.message,
      message_type: message.type,
      company_id: message.company_id,
      ...(message.media ? { media: message.media } : {}),
    },
    now,
    ids(message, 'message_received'),
  ),
  ...(message.phone_number_id ? { phone_number_id: message.phone_number_id } : {}),
  ...extras,
});
