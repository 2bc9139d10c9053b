import type {
  ConversationState,
  ConversationStateResponse,
  ConversationStatus,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { ConversationStore, StoredConversation } from '../../data-access/conversation-store';

export function conversationState(conversation: StoredConversation): ConversationState {
  return {
    contact_id: conversation.contact_id,
    assigned_agent_id: conversation.assigned_agent_id ?? null,
    status: conversation.status ?? 'open',
    unread_count: conversation.unread_ids.length,
    updated_at: new Date(conversation.updated_at).toISOString(),
  };
}

function answered(conversation: StoredConversation | null, contact_id: number) {
  if (!conversation) {
    // Also another organization's contact: conversations are keyed by organization.
    throw new AppError('not_found', `contact_id: no conversation with contact ${contact_id}`);
  }
  return {
    status: 'success',
    conversation: conversationState(conversation),
  } satisfies ConversationStateResponse;
}

/**
 * Gives a conversation to a user or to nobody. The gateway has checked that the user is an active
 * user of this organization (users live there); messaging keeps only the id.
 */
export async function assignConversation(
  conversations: ConversationStore,
  company_id: number,
  contact_id: number,
  agent_id: number | null,
): Promise<ConversationStateResponse> {
  return answered(await conversations.assign(company_id, contact_id, agent_id), contact_id);
}

export async function setConversationStatus(
  conversations: ConversationStore,
  company_id: number,
  contact_id: number,
  status: ConversationStatus,
): Promise<ConversationStateResponse> {
  return answered(await conversations.setStatus(company_id, contact_id, status), contact_id);
}

/** The inbox's operations as the routes call them, over the conversation store. */
export interface Inbox {
  assign(
    company_id: number,
    contact_id: number,
    agent_id: number | null,
  ): Promise<ConversationStateResponse>;
  setStatus(
    company_id: number,
    contact_id: number,
    status: ConversationStatus,
  ): Promise<ConversationStateResponse>;
}

export function createInbox(conversations: ConversationStore): Inbox {
  return {
    assign: (company_id, contact_id, agent_id) =>
      assignConversation(conversations, company_id, contact_id, agent_id),
    setStatus: (company_id, contact_id, status) =>
      setConversationStatus(conversations, company_id, contact_id, status),
  };
}
