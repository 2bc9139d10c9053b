import type { SimulatorContext } from '../../simulator-context';
import type { Channel } from '../../state/channel';
import type { WebhookRecord } from '../../state/records';
import { pairKey } from '../../state/simulator-state';
import { mediaDownloadUrl, storeMedia } from '../media/store-media';
import { messagesEnvelope } from '../webhooks/webhook-envelopes';
import { buildInboundMessage } from './build-inbound-message';
import type { InboundInput, InboundType } from './inbound-input';

export interface InjectedInbound {
  wamid: string;
  message: Record<string, unknown>;
  webhook: WebhookRecord;
}

/**
 * An end user writes to the business: the message (with stored media for media types) is posted
 * as a signed `messages` webhook, and the user's 24 h customer service window opens.
 */
export async function injectInbound(
  ctx: SimulatorContext,
  channel: Channel,
  input: InboundInput,
  type: InboundType,
  baseUrl: string,
): Promise<InjectedInbound> {
  const phoneNumberId = channel.registration.phone_number_id;
  const waId = input.from.replace(/\D/g, '');
  const now = ctx.now();
  const message = buildInboundMessage(input, type, {
    businessWaId: channel.business_wa_id,
    lastOutgoingWamid: ctx.state.lastOutgoingWamid.get(pairKey(phoneNumberId, waId)),
    nowMs: now,
    storeMedia: (mimeType, filename, data) => {
      const record = storeMedia(ctx.state, {
        phoneNumberId,
        mimeType,
        data: data ?? Buffer.from(`simulated ${mimeType} sent by ${waId} at ${now}\n`),
        ...(filename !== undefined && { filename }),
        now,
      });
      const url = mediaDownloadUrl(
        baseUrl,
        record,
        now + ctx.options.mediaUrlTtlMs,
        ctx.state.mediaUrlSecret,
      );
      return { id: record.id, sha256: record.sha256, url };
    },
  });
  ctx.state.lastInboundAt.set(pairKey(phoneNumberId, waId), now);
  ctx.state.rememberInbound({
    wamid: String(message.id),
    phone_number_id: phoneNumberId,
    wa_id: waId,
    type,
    received_at: now,
  });
  const payload = messagesEnvelope(channel, {
    contacts: [{ profile: { name: input.profile_name }, wa_id: waId }],
    messages: [message],
  });
  const webhook = await ctx.postWebhook({
    target: { url: channel.registration.webhook_url, appSecret: channel.registration.app_secret },
    field: 'messages',
    wabaId: channel.registration.waba_id,
    phoneNumberId,
    payload,
  });
  return { wamid: String(message.id), message, webhook };
}
