import {
  DEFAULT_MESSAGES_PER_PAGE,
  pageMeta,
  pageRequest,
  type ConversationsResponse,
  type GetConversationsQuery,
  type GetMessagesQuery,
  type MessageStatusResponse,
  type MessagesResponse,
} from '@switchboard/contracts';
import { AppError, type Logger } from '@switchboard/service-kit';
import type { ConversationFilter, ConversationStore } from '../../data-access/conversation-store';
import { hasRealWamid, type MessageStore } from '../../data-access/message-store';
import type { ContactRef, ContactsClient } from '../../outbound/contacts-client';
import { presentMessage, statusTimesOf } from './present-message';

export interface ReadingDeps {
  messages: MessageStore;
  conversations: ConversationStore;
  contacts: ContactsClient;
  logger: Logger;
}

const noMessage = (id: number) => new AppError('not_found', `message_id: no message ${id}`);

/** The API's `getMessageStatus`: another organization's message is not found (404). */
export async function getMessageStatus(
  deps: ReadingDeps,
  company_id: number,
  message_id: number,
): Promise<MessageStatusResponse> {
  const message = await deps.messages.findOwn(company_id, message_id);
  if (!message) throw noMessage(message_id);
  return {
    status: 'success',
    message_id: message.id,
    message_wamid: hasRealWamid(message) ? message.wamid : null,
    message_status: message.status,
    error: message.error,
    status_times: statusTimesOf(message),
    history: (message.history ?? []).map((entry) => ({
      status: entry.status,
      at: new Date(entry.at).toISOString(),
      applied: entry.applied,
    })),
  };
}

/** The API's `getMessages`: a contact's messages, newest first, by keyset pages. */
export async function getMessages(
  deps: ReadingDeps,
  company_id: number,
  query: GetMessagesQuery,
): Promise<MessagesResponse> {
  const request = pageRequest(query, DEFAULT_MESSAGES_PER_PAGE);
  const [page, total] = await Promise.all([
    deps.messages.listByContact(
      company_id,
      query.contact_id,
      request.per_page + 1,
      query.before_id,
      request.skip,
    ),
    deps.messages.countByContact(company_id, query.contact_id, query.before_id),
  ]);
  if (total === 0 && query.before_id === undefined) {
    // No messages: an unknown contact (also another organization's) is a 404, not an empty list.
    const [contact] = await deps.contacts.byIds(company_id, [query.contact_id]);
    if (!contact) throw new AppError('not_found', `contact_id: no contact ${query.contact_id}`);
  }
  const messages = page.slice(0, request.per_page);
  return {
    status: 'success',
    messages: messages.map(presentMessage),
    meta: pageMeta(total, request),
    next_before_id: page.length > request.per_page ? messages[messages.length - 1]!.id : null,
  };
}

/** The inbox's filters of a listing; `me` is the signed-in user the gateway names. */
function filterOf(query: GetConversationsQuery, user_id: number | undefined): ConversationFilter {
  const { assignee } = query;
  if (assignee === 'me' && user_id === undefined) {
    throw new AppError(
      'validation_failed',
      'assignee: me needs a signed-in user (an API token acts for no one); give a user id',
    );
  }
  return {
    before_id: query.before_id,
    status: query.status,
    unread: query.unread,
    ...(assignee === undefined
      ? {}
      : {
          assigned_agent_id: assignee === 'me' ? user_id! : assignee === 'none' ? null : assignee,
        }),
  };
}

/**
 * The API's `getConversations`: contacts by their latest message, with current names, their
 * assignee, status and unread count; filtered by assignee, status and unread when asked.
 */
export async function getConversations(
  deps: ReadingDeps,
  company_id: number,
  query: GetConversationsQuery,
  user_id?: number,
): Promise<ConversationsResponse> {
  const request = pageRequest(query, DEFAULT_MESSAGES_PER_PAGE);
  const filter = filterOf(query, user_id);
  const [page, total] = await Promise.all([
    deps.conversations.list(company_id, request.per_page + 1, filter, request.skip),
    deps.conversations.count(company_id, filter),
  ]);
  const conversations = page.slice(0, request.per_page);
  const [found, contacts] = await Promise.all([
    // One read for the page's last messages, not one per conversation.
    deps.messages.findByIds(conversations.map((c) => c.last_message_id)),
    deps.contacts
      .byIds(
        company_id,
        conversations.map((c) => c.contact_id),
      )
      .catch((error: unknown): ContactRef[] => {
        deps.logger.warn({ err: error }, 'contacts unavailable; showing stored names');
        return [];
      }),
  ]);
  const names = new Map(contacts.map((contact) => [contact.id, contact.name]));
  const byId = new Map(found.map((message) => [message.id, message]));
  const lastMessages = conversations.map((c) => byId.get(c.last_message_id));
  const items = conversations.flatMap((conversation, index) => {
    const last = lastMessages[index];
    if (!last || last.company_id !== company_id) return [];
    const lastMessage = presentMessage(last);
    return [
      {
        contact_id: conversation.contact_id,
        message_id: lastMessage.message_id,
        message_wamid: lastMessage.message_wamid,
        contact_name: names.get(conversation.contact_id) ?? conversation.contact_name,
        phone: conversation.phone,
        last_message: lastMessage,
        ...(lastMessage.phone_number_id ? { phone_number_id: lastMessage.phone_number_id } : {}),
        unread_count: conversation.unread_ids.length,
        assigned_agent_id: conversation.assigned_agent_id ?? null,
        status: conversation.status ?? 'open',
        last_inbound_at: conversation.last_inbound_at
          ? new Date(conversation.last_inbound_at).toISOString()
          : null,
        updated_at: new Date(conversation.updated_at).toISOString(),
      },
    ];
  });
  return {
    status: 'success',
    conversations: items,
    meta: pageMeta(total, request),
    next_before_id:
      page.length > request.per_page
        ? conversations[conversations.length - 1]!.last_message_id
        : null,
  };
}
