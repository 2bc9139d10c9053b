import { Schema, type Connection } from 'mongoose';
import { isDuplicateKeyError } from '@switchboard/service-kit';
import { createIfMissing, op } from './mongo-helpers';
import { createWriteBatcher } from './write-batcher';
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

interface Outbound {
  message: Subject;
  contactName: string | undefined;
  now: Date;
}

/**
 * The write that makes sent messages their conversations' last message, as an upsert by `_id`
 * (the conversation of a contact's first message is created by it). Several sends to one contact
 * in a batch become one write, of the newest.
 */
function outboundUpserts(items: Outbound[]) {
  const newest = new Map<string, Outbound>();
  for (const item of items) {
    const _id = conversationId(item.message.company_id, item.message.contact_id);
    const held = newest.get(_id);
    if (!held || held.message.id < item.message.id) newest.set(_id, item);
  }
  return [...newest].map(([_id, { message, contactName, now }]) => ({
    updateOne: {
      filter: { _id },
      update: {
        $max: { last_message_id: message.id, updated_at: now },
        $set: { unread_ids: [], ...(contactName ? { contact_name: contactName } : {}) },
        $setOnInsert: {
          company_id: message.company_id,
          contact_id: message.contact_id,
          phone: message.phone,
          ...(contactName ? {} : { contact_name: message.phone }),
        },
      },
      upsert: true,
    },
  }));
}

/** A bulk write whose only failures are duplicate keys. */
function allDuplicates(error: unknown): boolean {
  const { writeErrors } = (error ?? {}) as { writeErrors?: unknown };
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.length > 0 && list.every((e) => isDuplicateKeyError(e));
}

export function createConversationStore(db: Connection) {
  const Conversations = db.model<StoredConversation>('Conversation', conversationSchema);

  /** Sent messages of concurrent sends, written together: one command for many conversations. */
  const outbound = createWriteBatcher<Outbound>(async (items) => {
    const writes = outboundUpserts(items);
    try {
      await Conversations.bulkWrite(writes, { ordered: false });
    } catch (error) {
      // Two first upserts of one conversation can race (one gets E11000): the document exists
      // now, so the writes go once more, where they are plain updates.
      if (!isDuplicateKeyError(error) && !allDuplicates(error)) throw error;
      await Conversations.bulkWrite(writes, { ordered: false });
    }
  });

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

    /**
     * As `record` for a message the business sent, written with other sends' in one command;
     * settles once it is stored.
     */
    recordSent(message: Subject, contactName: string | undefined, now: Date): Promise<void> {
      return outbound.add({ message, contactName, now });
    },

    /**
     * The business read the conversation up to `message_id` (the provider marks the messages
     * before a read one read too): those stop counting as unread. Answers how many remain.
     */
    async markReadUpTo(
      company_id: number,
      contact_id: number,
      message_id: number,
    ): Promise<number> {
      const _id = conversationId(company_id, contact_id);
      const current = await Conversations.findById(_id, { unread_ids: 1 })
        .lean<Pick<StoredConversation, 'unread_ids'>>()
        .exec();
      const read = (current?.unread_ids ?? []).filter((id) => id <= message_id);
      if (read.length === 0) return current?.unread_ids.length ?? 0;
      // By value (`$pullAll`): the local database ignores `$pull` with a condition, and a message
      // arriving meanwhile is not among the values, so it stays unread.
      const after = await Conversations.findOneAndUpdate(
        { _id },
        { $pullAll: { unread_ids: read } },
        // No projection: the local database's findAndModify does not take one.
        { returnDocument: 'after' },
      )
        .lean<Pick<StoredConversation, 'unread_ids'>>()
        .exec();
      return after?.unread_ids.length ?? 0;
    },

    /** Resolves once every sent message handed over so far is recorded. */
    drain: () => outbound.drain(),

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
