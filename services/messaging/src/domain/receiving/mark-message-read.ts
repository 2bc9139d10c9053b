import type { MarkMessageReadRequest, MarkMessageReadResponse } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { ConversationStore } from '../../data-access/conversation-store';
import type { MessageStore } from '../../data-access/message-store';
import type { CloudApi } from '../../outbound/cloud-api';
import type { ChannelDirectory } from '../channel-directory';
import type { ProviderFailure } from '../../outbound/provider-failure';

export interface MarkReadDeps {
  messages: Pick<MessageStore, 'findOwn'>;
  conversations: Pick<ConversationStore, 'markReadUpTo'>;
  channels: Pick<ChannelDirectory, 'find' | 'findNumber'>;
  cloudApi: Pick<CloudApi, 'forChannel'>;
}

/** The provider's refusal as the API answers it: its text, with the status its kind calls for. */
function providerError(failure: ProviderFailure): AppError {
  if (failure.kind === 'throttled') return new AppError('rate_limited', failure.message);
  if (failure.kind === 'unavailable')
    return new AppError('dependency_unavailable', failure.message);
  return new AppError('provider_error', failure.message, {
    httpStatus: failure.httpStatus === 400 || failure.httpStatus === 404 ? 422 : 502,
  });
}

/**
 * Marks a message the contact sent as read at the provider (the contact sees blue ticks on it
 * and the messages before it), optionally showing a typing indicator, and then drops it and the
 * earlier ones from the conversation's unread messages. Only after the provider said yes: a
 * refused receipt leaves the inbox as it was, so it still shows what the contact was not told.
 */
export async function markMessageRead(
  deps: MarkReadDeps,
  company_id: number,
  request: MarkMessageReadRequest,
): Promise<MarkMessageReadResponse> {
  const message = await deps.messages.findOwn(company_id, request.message_id);
  if (!message) throw new AppError('not_found', `message_id: no message ${request.message_id}`);
  if (message.direction !== 'inbound') {
    throw new AppError(
      'validation_failed',
      'message_id: only a message the contact sent can be marked read (this one was sent by the business)',
    );
  }
  // The receipt goes through the number the message reached.
  const channel =
    (message.phone_number_id
      ? await deps.channels.findNumber(company_id, message.phone_number_id)
      : null) ?? (await deps.channels.find(company_id));
  if (!channel) {
    throw new AppError('dependency_unavailable', 'This organization has no messaging channel');
  }
  const typing = request.typing ?? false;
  const result = await deps.cloudApi.forChannel(channel).markRead(message.wamid, typing);
  if (!result.ok) throw providerError(result.failure);
  const unread_count = await deps.conversations.markReadUpTo(
    company_id,
    message.contact_id,
    message.id,
  );
  return {
    status: 'success',
    message_id: message.id,
    message_wamid: message.wamid,
    contact_id: message.contact_id,
    typing,
    unread_count,
  };
}
