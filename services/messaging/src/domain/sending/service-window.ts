import { AppError } from '@switchboard/service-kit';
import type { ConversationStore } from '../../data-access/conversation-store';
import type { ContactRef } from '../../outbound/contacts-client';
import type { OutboundContent } from './send-types';
import type { ProviderFailure } from '../../outbound/provider-failure';

/**
 * The provider's customer service window: a business may send free-form messages (text, media,
 * buttons) to a contact only within 24 hours of the contact's last message; after that only a
 * template is delivered (the Cloud API accepts the send and then fails it with error 131047).
 */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Why a free-form message cannot go, or undefined when it may (a template always may). */
export function outsideServiceWindow(
  content: Pick<OutboundContent, 'kind'>,
  lastInboundAt: Date | null | undefined,
  now: Date,
): string | undefined {
  // A contact we never heard from is left to the provider: the window is not known here.
  if (content.kind === 'template' || !lastInboundAt) return undefined;
  if (now.getTime() - new Date(lastInboundAt).getTime() <= SERVICE_WINDOW_MS) return undefined;
  return (
    'Outside the 24-hour customer service window: the contact last wrote at ' +
    `${new Date(lastInboundAt).toISOString()}, more than 24 hours ago, so the provider delivers ` +
    'only template messages until they write again; send a template (sendtemplatemessage)'
  );
}

/**
 * Checks the window of a send's contact before anything is sent. An API caller gets the error
 * (422 `outside_service_window`); a command is answered with a failed message instead, because
 * its producer (a campaign) counts on a `message_failed` for every command.
 */
export async function serviceWindowRefusal(
  conversations: Pick<ConversationStore, 'find' | 'rememberedInbound'>,
  request: { idempotency?: { scope: 'api' | 'command' } },
  content: Pick<OutboundContent, 'kind'>,
  contact: ContactRef,
  company_id: number,
  now: Date,
): Promise<ProviderFailure | undefined> {
  if (content.kind === 'template') return undefined;
  // What this process last saw settles it when it lets the message go: the contact's last
  // message only moves forward, so one seen inside the window is inside it still, and a contact
  // seen without any is left to the provider as a read now would leave them (unless their first
  // message reached another replica since, with a time over a day old: the provider then fails
  // the send, as it does any free-form message outside the window). A refusal is always read.
  const remembered = conversations.rememberedInbound(company_id, contact.id);
  if (remembered !== undefined && !outsideServiceWindow(content, remembered, now)) {
    return undefined;
  }
  const conversation = await conversations.find(company_id, contact.id);
  const reason = outsideServiceWindow(content, conversation?.last_inbound_at, now);
  if (!reason) return undefined;
  if (request.idempotency?.scope !== 'command') {
    throw new AppError('outside_service_window', reason);
  }
  return { message: reason, code: 131047, httpStatus: 422, retryable: false, kind: 'refused' };
}
