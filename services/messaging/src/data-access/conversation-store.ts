import { Schema, type Connection } from 'mongoose';
import { createIfMissing, op } from './mongo-helpers';
import type { StoredMessage } from './message-store';

/** One contact's thread: its last message and the inbound messages not answered yet. */
export interface StoredConversation {
  /** `<company_id>:<contact_id>`. */
  _id: string;
  company_id: number;
  contact_id: number;
  phone: string;
  /** The name contacts had when the last message was stored; shown if contacts cannot answer. */
  contact_name: string;
  last_message_id: number;
  /** Ids of inbound messages since the business last sent one; its length is the unread count. */
  unread_ids: number[];
  updated_at: Date;
}

const conversationSchema = new Schema<StoredConversation>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    contact_id: { type: Number, required: true },
    phone: { type: String, required: true },
    contact_name: { type: String, required: true },
    last_message_id: { type: Number, required: true },
    unread_ids: { type: [Number], default: [] },
    updated_at: { type: Date, required: true },
  },
  { collection: 'conversations', versionKey: false, minimize: false },
);
conversationSchema.index({ company_id: 1, last_message_id: -1 });

export const conversationId = (company_id: number, contact_id: number) =>
  `${company_id}:${contact_id}`;

type Subject = Pick<StoredMessage, 'id' | 'company_id' | 'contact_id' | 'phone' | 'direction'>;

export function createConversationStore(db: Connection) {
  const Conversations = db.model<StoredConversation>('Conversation', conversationSchema);

  return {
    init: () => Conversations.init(),

    /**
     * Makes `message` the conversation's last message unless a newer one already is (`$max` of
     * the id), counts an inbound message as unread, and an outbound one clears the unread count.
     * Every write is by `_id` alone and idempotent: a redelivered message changes nothing twice.
     */
    async record(message: Subject, contactName: string | undefined, now: Date): Promise<void> {
      const _id = conversationId(message.company_id, message.contact_id);
      const update = {
        $max: { last_message_id: message.id, updated_at: now },
        ...(message.direction === 'inbound'
          ? {
              $addToSet: { unread_ids: message.id },
              ...(contactName ? { $set: { contact_name: contactName } } : {}),
            }
          : { $set: { unread_ids: [], ...(contactName ? { contact_name: contactName } : {}) } }),
      };
      const { matchedCount } = await Conversations.updateOne({ _id }, update);
      if (matchedCount === 1) return;
      // The contact's first message: create the conversation (first upserts race), then update it.
      await createIfMissing(Conversations, _id, {
        company_id: message.company_id,
        contact_id: message.contact_id,
        phone: message.phone,
        contact_name: contactName ?? message.phone,
        last_message_id: 0,
        unread_ids: [],
        updated_at: now,
      });
      await Conversations.updateOne({ _id }, update);
    },

    /** The organization's conversations, most recent message first. */
    list(
      company_id: number,
      limit: number,
      before_id?: number,
      skip = 0,
    ): Promise<StoredConversation[]> {
      return Conversations.find(listFilter(company_id, before_id))
        .sort({ last_message_id: -1 })
        .skip(skip)
        .limit(limit)
        .lean<StoredConversation[]>()
        .exec();
    },

    count(company_id: number, before_id?: number): Promise<number> {
      return Conversations.countDocuments(listFilter(company_id, before_id)).exec();
    },
  };
}

export type ConversationStore = ReturnType<typeof createConversationStore>;

/** Conversations with a message, those whose last message is older than `before_id` when given. */
function listFilter(company_id: number, before_id?: number) {
  return { company_id, last_message_id: op(before_id ? { $gt: 0, $lt: before_id } : { $gt: 0 }) };
}
