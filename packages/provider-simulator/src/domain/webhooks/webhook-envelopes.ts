import type { Channel } from '../../state/channel';

/** Reference §3.2: `{object, entry:[{id: WABA id, time?, changes:[{field, value}]}]}`. */
export interface WebhookEnvelope {
  object: 'whatsapp_business_account';
  entry: { id: string; time?: number; changes: { field: string; value: unknown }[] }[];
}

export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * A `messages` change (inbound messages, statuses, system errors) of one phone number.
 * `entry[].time` is left out: Meta omits it on `messages` changes.
 */
export function messagesEnvelope(
  channel: Channel,
  content: { contacts?: unknown[]; messages?: unknown[]; statuses?: unknown[]; errors?: unknown[] },
): WebhookEnvelope {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: channel.registration.waba_id,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: channel.business_wa_id,
                phone_number_id: channel.registration.phone_number_id,
              },
              ...content,
            },
          },
        ],
      },
    ],
  };
}

/** A management change (`account_update`, `message_template_status_update`, …): `time` is set. */
export function managementEnvelope(
  wabaId: string,
  field: string,
  value: unknown,
  nowMs: number,
): WebhookEnvelope {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: wabaId, time: unixSeconds(nowMs), changes: [{ field, value }] }],
  };
}
