import { AppError } from '@switchboard/service-kit';
import {
  hasRealWamid,
  type MessageStore,
  type StoredMessage,
} from '../../data-access/message-store';
import {
  requestedContent,
  type MessageReference,
  type OutboundContent,
  type Recipient,
  type SendRequest,
} from './send-types';

/** Meta delivers no reaction to a message older than 30 days. */
const REACTION_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

const refuse = (field: string, why: string) =>
  new AppError('validation_failed', `${field}: ${why}`);

/** Whether a stored message belongs to the conversation with this recipient. */
function inConversation(message: StoredMessage, recipient: Recipient): boolean {
  if ('phone' in recipient) return message.phone === recipient.phone;
  if ('contact_id' in recipient) return message.contact_id === recipient.contact_id;
  return message.contact_id === recipient.contact.id;
}

async function lookUp(
  messages: Pick<MessageStore, 'findOwn'>,
  request: SendRequest,
  field: string,
  reference: MessageReference,
): Promise<StoredMessage> {
  const message = await messages.findOwn(request.organization.company_id, reference.message_id);
  if (!message) throw refuse(field, `no message ${reference.message_id} in this organization`);
  if (!inConversation(message, request.recipient)) {
    throw refuse(
      field,
      `message ${reference.message_id} is not in the conversation with this phone`,
    );
  }
  if (!hasRealWamid(message) || message.status === 'failed') {
    throw refuse(field, `message ${reference.message_id} never reached the provider`);
  }
  return message;
}

/**
 * Finds the provider's ids of the messages a send refers to (the message it replies to, the
 * message a reaction is for), refusing with 422 before anything is reserved or sent when one is
 * not a message of this conversation the provider knows.
 */
export async function resolveReferences(
  messages: Pick<MessageStore, 'findOwn'>,
  request: SendRequest,
  now = new Date(),
): Promise<SendRequest> {
  const probe = requestedContent(request);
  const replyTo = probe.replyTo
    ? (await lookUp(messages, request, 'reply_to', probe.replyTo)).wamid
    : undefined;
  let reactionTo: string | undefined;
  if (probe.kind === 'reaction') {
    const target = await lookUp(messages, request, 'reaction.message_id', probe.to);
    if (target.type === 'reaction') {
      throw refuse('reaction.message_id', 'a reaction cannot be reacted to');
    }
    if (now.getTime() - target.created_at.getTime() > REACTION_MAX_AGE_MS) {
      throw refuse(
        'reaction.message_id',
        'the provider takes reactions to messages of the last 30 days only',
      );
    }
    reactionTo = target.wamid;
  }
  if (replyTo === undefined && reactionTo === undefined) return request;

  const fill = (content: OutboundContent): OutboundContent => {
    const filled = { ...content };
    if (filled.replyTo && replyTo) filled.replyTo = { ...filled.replyTo, wamid: replyTo };
    if (filled.kind === 'reaction' && reactionTo) filled.to = { ...filled.to, wamid: reactionTo };
    return filled;
  };
  return 'content' in request
    ? { ...request, content: fill(request.content) }
    : { ...request, contentFor: (mediaId) => fill(request.contentFor(mediaId)) };
}
