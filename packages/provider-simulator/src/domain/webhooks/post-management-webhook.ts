import type { SimulatorContext } from '../../simulator-context';
import type { WebhookRecord } from '../../state/records';
import { managementEnvelope } from './webhook-envelopes';

/**
 * Management fields belong to the WABA, not to one number: the webhook goes once to each distinct
 * receiver (webhook URL + app secret) among the WABA's channels, as to each subscribed app.
 */
export async function postManagementWebhook(
  ctx: SimulatorContext,
  wabaId: string,
  field: string,
  value: unknown,
  phoneNumberId?: string,
): Promise<WebhookRecord[]> {
  const channels = phoneNumberId
    ? [ctx.state.channels.get(phoneNumberId)].filter((c) => c !== undefined)
    : ctx.state.channelsOfWaba(wabaId);
  const receivers = new Map<string, { url: string; appSecret: string }>();
  for (const channel of channels) {
    const { webhook_url: url, app_secret: appSecret } = channel.registration;
    receivers.set(`${url} ${appSecret}`, { url, appSecret });
  }
  const payload = managementEnvelope(wabaId, field, value, ctx.now());
  return Promise.all(
    [...receivers.values()].map((target) =>
      ctx.postWebhook({
        target,
        field,
        wabaId,
        ...(phoneNumberId !== undefined && { phoneNumberId }),
        payload,
      }),
    ),
  );
}
