import { randomUUID } from 'node:crypto';
import type { Collection } from 'mongodb';
import { Schema, type Connection } from 'mongoose';
import type { ConversationStatus } from '@switchboard/contracts';
import { createTtlCache, isDuplicateKeyError } from '@switchboard/service-kit';
import { createIfMissing, onlyDuplicateKeyErrors, op } from './mongo-helpers';
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
  /** `unread_ids` is not empty: kept beside it so that the unread filter is an indexed equality. */
  has_unread: boolean;
  status: ConversationStatus;
  /** The gateway's user id of the agent who has it; null: nobody. */
  assigned_agent_id: number | null;
  /** When the contact last wrote (the provider's time): the customer service window starts there. */
  last_inbound_at: Date | null;
  /** When an agent last sent the contact a message: automated answers wait a while after it. */
  agent_replied_at: Date | null;
  /** The batch of sends that last found unread messages here and made them read (see recordSent). */
  unread_cleared_by?: string;
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
    has_unread: { type: Boolean, default: false },
    status: { type: String, default: 'open' },
    assigned_agent_id: { type: Number, default: null },
    last_inbound_at: { type: Date, default: null },
    agent_replied_at: { type: Date, default: null },
    unread_cleared_by: { type: String },
    updated_at: { type: Date, required: true },
  },
  { collection: 'conversations', versionKey: false, minimize: false },
);
conversationSchema.index({ company_id: 1, last_message_id: -1 });
// The inbox's filters, each an equality after the organization, newest first within it.
conversationSchema.index({ company_id: 1, status: 1, last_message_id: -1 });
conversationSchema.index({ company_id: 1, assigned_agent_id: 1, last_message_id: -1 });
conversationSchema.index({ company_id: 1, has_unread: 1, last_message_id: -1 });

/** What getConversations may filter on (all given ones apply). */
export interface ConversationFilter {
  before_id?: number;
  status?: ConversationStatus;
  /** A user id, or null for conversations nobody has. */
  assigned_agent_id?: number | null;
  unread?: boolean;
}

/** Told of every change to a conversation's assignee, status or unread count, with its new state. */
export type ConversationListener = (conversation: StoredConversation) => void;

/** How long this process trusts what it saw of a contact's last inbound message (see rememberedInbound). */
const INBOUND_MEMORY_MS = 5 * 60_000;

export const conversationId = (company_id: number, contact_id: number) =>
  `${company_id}:${contact_id}`;

type Subject = Pick<StoredMessage, 'id' | 'company_id' | 'contact_id' | 'phone' | 'direction'> &
  Partial<Pick<StoredMessage, 'sent_by_agent_id'>>;

interface Outbound {
  message: Subject;
  contactName: string | undefined;
  now: Date;
}

/**
 * The writes that make sent messages their conversations' last message, as upserts by `_id`
 * (the conversation of a contact's first message is created by one). Several sends to one
 * contact in a batch become one write, of the newest. Before them, one conditional write per
 * conversation marks those that had unread messages with the batch's `token`: the bulk write's
 * match count then says whether any had, and only then are they read back, by the mark, for the
 * console (a send to a conversation with nothing unread, the usual case, costs no read).
 */
function outboundWrites(items: Outbound[], byAgents: Set<string>, token: string) {
  const newest = new Map<string, Outbound>();
  for (const item of items) {
    const _id = conversationId(item.message.company_id, item.message.contact_id);
    const held = newest.get(_id);
    if (!held || held.message.id < item.message.id) newest.set(_id, item);
    if (item.message.sent_by_agent_id) byAgents.add(_id);
  }
  const marks = [...newest.keys()].map((_id) => ({
    updateOne: {
      filter: { _id, has_unread: true },
      update: { $set: { unread_cleared_by: token } },
    },
  }));
  const upserts = [...newest].map(([_id, { message, contactName, now }]) => ({
    updateOne: {
      filter: { _id },
      update: {
        // An agent's message: automated answers wait from now (see receive-messages).
        $max: {
          last_message_id: message.id,
          updated_at: now,
          ...(byAgents.has(_id) ? { agent_replied_at: now } : {}),
        },
        $set: {
          unread_ids: [],
          has_unread: false,
          ...(contactName ? { contact_name: contactName } : {}),
        },
        $setOnInsert: {
          company_id: message.company_id,
          contact_id: message.contact_id,
          phone: message.phone,
          status: 'open' as const,
          assigned_agent_id: null,
          last_inbound_at: null,
          // Not agent_replied_at with an agent's message: `$max` sets it (one path cannot be in
          // two operators).
          ...(byAgents.has(_id) ? {} : { agent_replied_at: null }),
          ...(contactName ? {} : { contact_name: message.phone }),
        },
      },
      upsert: true,
    },
  }));
  return { marks, upserts };
}

export function createConversationStore(
  db: Connection,
  changed: ConversationListener = () => undefined,
) {
  const Conversations = db.model<StoredConversation>('Conversation', conversationSchema);
  // The driver alone for the sends' batched writes: they are built complete here (every field a
  // new conversation has), and mongoose's casting of each was most of their cost in this process.
  const collection = Conversations.collection as unknown as Collection<StoredConversation>;

  const byId = (_id: string) => Conversations.findOne({ _id }).lean<StoredConversation>().exec();

  /** One change by `_id`, answered with the conversation as it is after it (null: none). */
  const change = (_id: string, update: Record<string, unknown>, filter = {}) =>
    Conversations.findOneAndUpdate({ _id, ...filter }, update, { returnDocument: 'after' })
      .lean<StoredConversation>()
      .exec();

  /**
   * When each contact last wrote, as this process last saw it (`find` and `record` keep it), for
   * the service window check of sends (see `rememberedInbound`).
   */
  const inboundSeen = createTtlCache<string, Date | null>({
    ttlMs: INBOUND_MEMORY_MS,
    maxEntries: 50_000,
  });
  const remember = (conversation: Pick<StoredConversation, '_id' | 'last_inbound_at'>) =>
    inboundSeen.set(conversation._id, conversation.last_inbound_at ?? null);

  /** Sent messages of concurrent sends, written together: one command for many conversations. */
  const outbound = createWriteBatcher<Outbound>(async (items) => {
    const byAgents = new Set<string>();
    const token = randomUUID();
    const { marks, upserts } = outboundWrites(items, byAgents, token);
    // In order: every mark lands before the upsert that empties its conversation's unread.
    let hadUnread = true;
    try {
      const result = await collection.bulkWrite([...marks, ...upserts], { ordered: true });
      // Each upsert matched its conversation or created it; what else matched was a mark.
      hadUnread = result.matchedCount - (upserts.length - result.upsertedCount) > 0;
    } catch (error) {
      // Two first upserts of one conversation can race (one gets E11000): the document exists
      // now, so the upserts go once more, where they are plain updates (the marks all ran).
      if (!isDuplicateKeyError(error) && !onlyDuplicateKeyErrors(error)) throw error;
      await collection.bulkWrite(upserts, { ordered: false });
    }
    if (hadUnread) {
      // Made read by this batch: the console hears of each, with the state it has now.
      const ids = upserts.map((write) => write.updateOne.filter._id);
      const cleared = await Conversations.find({ _id: op({ $in: ids }), unread_cleared_by: token })
        .lean<StoredConversation[]>()
        .exec();
      for (const conversation of cleared) changed(conversation);
    }
    // A conversation waiting for a person is open again once an agent has answered it.
    for (const _id of byAgents) {
      const reopened = await change(_id, { $set: { status: 'open' } }, { status: 'needs_human' });
      if (reopened) changed(reopened);
    }
  });

  return {
    async init(): Promise<void> {
      await Conversations.init();
      // Conversations stored before the inbox had these fields: open, nobody's.
      await Conversations.updateMany(
        { status: op({ $exists: false }) },
        { $set: { status: 'open', assigned_agent_id: null, agent_replied_at: null } },
      );
      await Conversations.updateMany(
        { has_unread: op({ $exists: false }), 'unread_ids.0': op({ $exists: true }) },
        { $set: { has_unread: true } },
      );
      await Conversations.updateMany(
        { has_unread: op({ $exists: false }) },
        { $set: { has_unread: false } },
      );
    },

    async find(company_id: number, contact_id: number): Promise<StoredConversation | null> {
      const _id = conversationId(company_id, contact_id);
      const conversation = await byId(_id);
      remember({ _id, last_inbound_at: conversation?.last_inbound_at ?? null });
      return conversation;
    },

    /**
     * When the contact last wrote, as this process saw it in the last `INBOUND_MEMORY_MS` (null:
     * they had not written), or undefined when it has not seen. The stored time only grows (an
     * inbound message moves it forward, nothing moves it back), so a time remembered is at most
     * the true one; the contact's first message recorded by another replica meanwhile is the one
     * thing a remembered null can miss.
     */
    rememberedInbound(company_id: number, contact_id: number): Date | null | undefined {
      return inboundSeen.get(conversationId(company_id, contact_id));
    },

    /**
     * Makes `message` the conversation's last message unless a newer one already is (`$max` of
     * the id), counts an inbound message as unread, and an outbound one clears the unread count.
     * Every write is by `_id` alone and idempotent: a redelivered message changes nothing twice.
     */
    async record(
      message: Subject,
      contactName: string | undefined,
      now: Date,
      receivedAt = now,
    ): Promise<void> {
      const _id = conversationId(message.company_id, message.contact_id);
      const inbound = message.direction === 'inbound';
      const update = {
        $max: {
          last_message_id: message.id,
          updated_at: now,
          ...(inbound ? { last_inbound_at: receivedAt } : {}),
        },
        ...(inbound
          ? {
              $addToSet: { unread_ids: message.id },
              $set: { has_unread: true, ...(contactName ? { contact_name: contactName } : {}) },
            }
          : {
              $set: {
                unread_ids: [],
                has_unread: false,
                ...(contactName ? { contact_name: contactName } : {}),
              },
            }),
      };
      const after = await change(_id, update);
      if (after) {
        remember(after);
        return announce(after, inbound);
      }
      // The contact's first message: create the conversation (first upserts race), then update it.
      await createIfMissing(Conversations, _id, {
        company_id: message.company_id,
        contact_id: message.contact_id,
        phone: message.phone,
        contact_name: contactName ?? message.phone,
        last_message_id: 0,
        unread_ids: [],
        has_unread: false,
        status: 'open',
        assigned_agent_id: null,
        last_inbound_at: null,
        agent_replied_at: null,
        updated_at: now,
      });
      const created = await change(_id, update);
      if (created) {
        remember(created);
        await announce(created, inbound);
      }
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
        .lean<StoredConversation>()
        .exec();
      if (!after) return 0;
      if (after.unread_ids.length === 0) {
        // Only while still empty: a message arriving meanwhile set it again, and stays unread.
        await Conversations.updateOne(
          { _id, 'unread_ids.0': op({ $exists: false }) },
          { $set: { has_unread: false } },
        ).exec();
        after.has_unread = false;
      }
      changed(after);
      return after.unread_ids.length;
    },

    /** Resolves once every sent message handed over so far is recorded. */
    drain: () => outbound.drain(),

    /** Gives the conversation to a user, or to nobody (null); null when there is no conversation. */
    async assign(company_id: number, contact_id: number, agent_id: number | null) {
      const after = await change(conversationId(company_id, contact_id), {
        $set: { assigned_agent_id: agent_id },
      });
      if (after) changed(after);
      return after;
    },

    /** Moves the conversation to `status`; null when there is no conversation. */
    async setStatus(company_id: number, contact_id: number, status: ConversationStatus) {
      const after = await change(conversationId(company_id, contact_id), { $set: { status } });
      if (after) changed(after);
      return after;
    },

    /** The organization's conversations, most recent message first. */
    list(
      company_id: number,
      limit: number,
      filter: ConversationFilter = {},
      skip = 0,
    ): Promise<StoredConversation[]> {
      return Conversations.find(listFilter(company_id, filter))
        .sort({ last_message_id: -1 })
        .skip(skip)
        .limit(limit)
        .lean<StoredConversation[]>()
        .exec();
    },

    count(company_id: number, filter: ConversationFilter = {}): Promise<number> {
      return Conversations.countDocuments(listFilter(company_id, filter)).exec();
    },
  };

  /**
   * After an inbound message: a closed conversation opens again (the contact wrote back), and
   * the console hears of the new unread count. A redelivered message changes nothing and says so
   * again, which the console takes as the same state.
   */
  async function announce(conversation: StoredConversation, inbound: boolean): Promise<void> {
    if (!inbound) return;
    if (conversation.status === 'closed') {
      const reopened = await change(
        conversation._id,
        { $set: { status: 'open' } },
        { status: 'closed' },
      );
      if (reopened) return changed(reopened);
    }
    changed(conversation);
  }
}

export type ConversationStore = ReturnType<typeof createConversationStore>;

/**
 * Conversations with a message, those whose last message is older than `before_id` when given,
 * narrowed by the inbox's filters.
 */
function listFilter(company_id: number, filter: ConversationFilter) {
  const { before_id } = filter;
  return {
    company_id,
    ...(filter.status !== undefined ? { status: filter.status } : {}),
    ...(filter.assigned_agent_id !== undefined
      ? { assigned_agent_id: filter.assigned_agent_id }
      : {}),
    ...(filter.unread !== undefined ? { has_unread: filter.unread } : {}),
    last_message_id: op(before_id ? { $gt: 0, $lt: before_id } : { $gt: 0 }),
  };
}
