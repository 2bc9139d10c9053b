import { stringKeyed } from '@switchboard/service-kit';
import { op } from '../mongo-helpers';
import { findMessageById, type Messages, type StoredMessage } from './message-documents';
import type { WamidKeys } from './wamid-keys';

/** A contact's messages, those older than `before_id` when given. */
function contactFilter(company_id: number, contact_id: number, before_id?: number) {
  return { company_id, contact_id, ...(before_id ? { id: op({ $lt: before_id }) } : {}) };
}

/** Reading messages: by id, by provider id, and a contact's messages page by page. */
export function messageReads(Messages: Messages, wamidKeys: WamidKeys) {
  const byId = findMessageById(Messages);

  /** The message a provider id names, through its key (no scan); null when not (yet) known. */
  async function findByWamidKey(wamid: string): Promise<StoredMessage | null> {
    const messageId = await wamidKeys.messageIdOf(wamid);
    return messageId === null ? null : byId(messageId);
  }

  return {
    findById: byId,

    /** Several messages in one read (by their string `_id`s), in no particular order. */
    findByIds(ids: number[]): Promise<StoredMessage[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return Messages.find({ _id: op({ $in: ids.map(String) }) })
        .lean<StoredMessage[]>()
        .exec();
    },

    /** The organization's message, or null (also for another organization's id). */
    async findOwn(company_id: number, id: number): Promise<StoredMessage | null> {
      const message = await byId(id);
      return message && message.company_id === company_id ? message : null;
    },

    findByWamidKey,

    /** Like findByWamidKey, and else by the message's own wamid (a scan: only when the key is missing). */
    async findByWamid(wamid: string): Promise<StoredMessage | null> {
      const keyed = await findByWamidKey(wamid);
      if (keyed) return keyed;
      // The key is written just after the message; a crash in between leaves only the message.
      const message = await Messages.findOne({ wamid }).lean<StoredMessage>().exec();
      if (message) await wamidKeys.remember(message);
      return message;
    },

    /**
     * Messages by id, read side by side (an `$in` is a scan on the local database), with the
     * driver alone: a status batch reads one per status, and mongoose's query building is most
     * of the cost of such a read in this process.
     */
    async findManyById(ids: number[]): Promise<Map<number, StoredMessage>> {
      const found = await Promise.all(
        [...new Set(ids)].map(
          (id) =>
            stringKeyed(Messages).findOne({ _id: String(id) }) as Promise<StoredMessage | null>,
        ),
      );
      return new Map(found.flatMap((message) => (message ? [[message.id, message]] : [])));
    },

    /** When the contact last wrote (its newest inbound message), or null if never. */
    async lastInboundAt(company_id: number, contact_id: number): Promise<Date | null> {
      const message = await Messages.findOne({ company_id, contact_id, direction: 'inbound' })
        .sort({ id: -1 })
        .lean<StoredMessage>()
        .exec();
      return message ? message.created_at : null;
    },

    /** A contact's messages, newest first, older than `before_id` when given. */
    listByContact(
      company_id: number,
      contact_id: number,
      limit: number,
      before_id?: number,
      skip = 0,
    ): Promise<StoredMessage[]> {
      return Messages.find(contactFilter(company_id, contact_id, before_id))
        .sort({ id: -1 })
        .skip(skip)
        .limit(limit)
        .lean<StoredMessage[]>()
        .exec();
    },

    countByContact(company_id: number, contact_id: number, before_id?: number): Promise<number> {
      return Messages.countDocuments(contactFilter(company_id, contact_id, before_id)).exec();
    },
  };
}
