import { randomUUID } from 'node:crypto';
import { EXCHANGES, type ConsoleEvent, type ConversationStatus } from '@switchboard/contracts';
import { PublishError, type Broker, type Logger } from '@switchboard/service-kit';
import type { StoredConversation } from '../../data-access/conversation-store';

type ConversationUpdated = Extract<ConsoleEvent, { event: 'conversation_updated' }>;

/** The console's view of a conversation's inbox state, as `conversation_updated` carries it. */
export function conversationUpdated(
  conversation: StoredConversation,
  now = new Date(),
): ConversationUpdated {
  return {
    id: randomUUID(),
    event: 'conversation_updated',
    timestamp: now.toISOString(),
    company_id: conversation.company_id,
    data: {
      contact_id: conversation.contact_id,
      assigned_agent_id: conversation.assigned_agent_id ?? null,
      status: (conversation.status ?? 'open') as ConversationStatus,
      unread_count: conversation.unread_ids.length,
    },
  };
}

/**
 * Publishes `conversation_updated` on the console exchange after each change, without holding up
 * the write that made it. These events only refresh what a signed-in user sees: each carries the
 * whole state, so a lost one is corrected by the next change or by reading getConversations
 * again; nothing is kept for a relay. With no console connected no queue is bound and the broker
 * returns the event unroutable, which is normal.
 */
export function createConsolePublisher(broker: Broker | undefined, logger: Logger) {
  const log = logger.child({ component: 'console-events' });
  return (conversation: StoredConversation): void => {
    if (!broker) return;
    const event = conversationUpdated(conversation);
    broker
      .publish(EXCHANGES.console, event.event, event, { messageId: event.id })
      .catch((error: unknown) => {
        if (error instanceof PublishError && error.kind === 'unroutable') return;
        log.warn(
          { err: error, contact_id: event.data.contact_id },
          'conversation_updated not published',
        );
      });
  };
}
