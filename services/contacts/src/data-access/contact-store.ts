import mongoose, { Schema, type Connection } from 'mongoose';
import { SUBSCRIPTION_STATUSES, type BrokerEvent, type Subscription } from '@switchboard/contracts';
import type { OutboxSource, PendingEvent as OutboxEvent } from '@switchboard/service-kit';
import { dropIfUnique, pendingInOrder } from '@switchboard/service-kit';

/**
 * A reserved event waiting to be published, kept on its contact (the outbox, ARCHITECTURE §6),
 * with the trace context it was written in.
 */
export type PendingEvent = OutboxEvent<
  Extract<BrokerEvent, { event: 'contact_created' | 'contact_updated' }>
>;

export interface StoredContact {
  id: number;
  company_id: number;
  name: string;
  phone: string;
  email: string | null;
  language: string | null;
  subscription: Subscription;
  group_ids: number[];
  custom: Record<string, string>;
  ai_bot_enabled: boolean;
  created_at: Date;
  updated_at: Date;
  /** Keyed by event id, so that clearing one published event is exact and idempotent. */
  pending_events: Record<string, PendingEvent>;
  pending_count: number;
}

/** What to select; `company_id` is always part of it (tenant isolation). */
export interface ContactFilter {
  company_id: number;
  group_ids?: number[];
  ids?: number[];
  after_id?: number;
  search?: string;
  subscribed_only?: boolean;
}

/** One write to a contact: fields to set, custom fields to remove, groups to join, an event to keep. */
export interface ContactChanges {
  set: Partial<Omit<StoredContact, 'id' | 'company_id' | 'pending_events' | 'pending_count'>> &
    Record<string, unknown>;
  unset?: string[];
  addGroupIds?: number[];
  event?: PendingEvent;
}

const contactSchema = new Schema<StoredContact>(
  {
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    name: { type: String, required: true },
    phone: { type: String, required: true },
    email: { type: String, default: null },
    language: { type: String, default: null },
    subscription: { type: String, enum: SUBSCRIPTION_STATUSES, required: true },
    group_ids: { type: [Number], default: [] },
    custom: { type: Schema.Types.Mixed, default: {} },
    ai_bot_enabled: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    pending_events: { type: Schema.Types.Mixed, default: {} },
    pending_count: { type: Number, default: 0 },
  },
  { collection: 'contacts', versionKey: false, minimize: false },
);
// One index per query shape (ARCHITECTURE §10: plain indexes only, no partial or text indexes).
// Not unique: a unique index must start with the shard key (company_id, phone), and ids come
// from a counter, unique by construction.
contactSchema.index({ id: 1 });
contactSchema.index({ company_id: 1, phone: 1 }, { unique: true });
contactSchema.index({ company_id: 1, id: 1 });
contactSchema.index({ company_id: 1, group_ids: 1, id: 1 });
contactSchema.index({ company_id: 1, subscription: 1, id: 1 });
contactSchema.index({ pending_count: 1 });

// sanitizeFilter is on for every query: operators we build ourselves are marked as trusted.
const op = <T extends object>(operator: T): T => mongoose.trusted(operator);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function toQuery(filter: ContactFilter): Record<string, unknown> {
  const query: Record<string, unknown> = { company_id: filter.company_id };
  if (filter.group_ids) query.group_ids = op({ $in: filter.group_ids });
  const id: Record<string, unknown> = {};
  if (filter.ids) id.$in = filter.ids;
  if (filter.after_id) id.$gt = filter.after_id;
  if (Object.keys(id).length > 0) query.id = op(id);
  if (filter.subscribed_only) query.subscription = 'subscribed';
  if (filter.search) {
    // No index serves a substring search; the company_id index bounds the scan to one organization.
    const byName = { name: new RegExp(escapeRegExp(filter.search), 'i') };
    // Only a search that looks like a phone number (digits, +, spaces, dashes, brackets) matches phones.
    const digits = /^[\d\s+\-()]+$/.test(filter.search) ? filter.search.replace(/\D/g, '') : '';
    query.$or = digits ? [byName, { phone: new RegExp(digits) }] : [byName];
  }
  return query;
}

const BY_ID = { id: 1 } as const;
const withoutMongoId = { _id: 0 } as const;

export function createContactStore(db: Connection) {
  const Contacts = db.model<StoredContact>('Contact', contactSchema);
  const strip = (doc: (StoredContact & { _id?: unknown }) | null): StoredContact | null => {
    if (!doc) return null;
    const { _id, ...contact } = doc;
    return contact;
  };

  return {
    async init(): Promise<void> {
      await dropIfUnique(Contacts.collection, 'id_1');
      await Contacts.init();
    },

    /** Throws a duplicate-key error (code 11000) when the organization already has this phone. */
    async insert(contact: StoredContact): Promise<void> {
      await Contacts.collection.insertOne({ ...contact });
    },

    findById(company_id: number, id: number): Promise<StoredContact | null> {
      return Contacts.findOne({ company_id, id }, withoutMongoId).lean<StoredContact>().exec();
    },

    findByPhone(company_id: number, phone: string): Promise<StoredContact | null> {
      return Contacts.findOne({ company_id, phone }, withoutMongoId).lean<StoredContact>().exec();
    },

    find(filter: ContactFilter, options: { skip?: number; limit?: number } = {}) {
      let query = Contacts.find(toQuery(filter), withoutMongoId).sort(BY_ID);
      if (options.skip) query = query.skip(options.skip);
      if (options.limit) query = query.limit(options.limit);
      return query.lean<StoredContact[]>().exec();
    },

    count(filter: ContactFilter): Promise<number> {
      return Contacts.countDocuments(toQuery(filter)).exec();
    },

    /** How many contacts each of these organizations holds, in one pass. */
    async countPerCompany(companyIds: number[]): Promise<Map<number, number>> {
      const rows = await Contacts.aggregate<{ _id: number; count: number }>([
        { $match: { company_id: { $in: companyIds } } },
        { $group: { _id: '$company_id', count: { $sum: 1 } } },
      ]).exec();
      return new Map(rows.map((row) => [row._id, row.count]));
    },

    /** Every matching contact in id order, `batchSize` at a time, from one cursor. */
    async *batches(filter: ContactFilter, batchSize: number): AsyncGenerator<StoredContact[]> {
      const cursor = Contacts.find(toQuery(filter), withoutMongoId)
        .sort(BY_ID)
        .batchSize(batchSize)
        .lean<StoredContact[]>()
        .cursor();
      let batch: StoredContact[] = [];
      try {
        for await (const contact of cursor) {
          batch.push(contact as StoredContact);
          if (batch.length === batchSize) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      } finally {
        await cursor.close();
      }
    },

    /** Applies `changes` to the organization's contact and returns it as it is now (null: no such contact). */
    async update(
      company_id: number,
      id: number,
      changes: ContactChanges,
    ): Promise<StoredContact | null> {
      const update: Record<string, Record<string, unknown>> = { $set: { ...changes.set } };
      if (changes.unset?.length) {
        update.$unset = Object.fromEntries(changes.unset.map((path) => [path, '']));
      }
      if (changes.addGroupIds?.length) {
        update.$addToSet = { group_ids: { $each: changes.addGroupIds } };
      }
      if (changes.event) {
        update.$set![`pending_events.${changes.event.id}`] = changes.event;
        update.$inc = { pending_count: 1 };
      }
      // No projection: FerretDB does not implement `fields` in findAndModify.
      const updated = await Contacts.findOneAndUpdate({ company_id, id }, update, {
        returnDocument: 'after',
      })
        .lean<StoredContact & { _id: unknown }>()
        .exec();
      return strip(updated);
    },

    async delete(company_id: number, id: number): Promise<StoredContact | null> {
      const deleted = await Contacts.findOneAndDelete({ company_id, id })
        .lean<StoredContact & { _id: unknown }>()
        .exec();
      return strip(deleted);
    },

    /** Membership goes with a deleted group; the contacts stay. */
    async removeGroup(company_id: number, group_id: number): Promise<void> {
      await Contacts.updateMany(
        { company_id, group_ids: group_id },
        { $pull: { group_ids: group_id } },
      );
    },

    /** Contacts that hold events not yet published, oldest id first. */
    withPendingEvents(limit: number): Promise<StoredContact[]> {
      return Contacts.find({ pending_count: op({ $gt: 0 }) }, withoutMongoId)
        .sort(BY_ID)
        .limit(limit)
        .lean<StoredContact[]>()
        .exec();
    },

    /** Drops one published event; a second call for the same event changes nothing. */
    async clearPendingEvent(company_id: number, id: number, eventId: string): Promise<void> {
      const path = `pending_events.${eventId}`;
      await Contacts.updateOne(
        { company_id, id, [path]: op({ $exists: true }) },
        { $unset: { [path]: '' }, $inc: { pending_count: -1 } },
      );
    },
  };
}

export type ContactStore = ReturnType<typeof createContactStore>;

/** How the kit's relay names a contact: contacts are keyed by organization and id, not `_id`. */
export const contactOutboxKey = (company_id: number, id: number) => `${company_id}:${id}`;

function fromOutboxKey(key: string): [company_id: number, id: number] {
  const [company_id, id] = key.split(':').map(Number);
  return [company_id!, id!];
}

/**
 * The contacts' outbox as the kit's event relay reads it. Its events sit in `pending_events`
 * with a `pending_count` (the field an index finds them by), so each is cleared with its own
 * guarded write: exact and idempotent, as a count must be.
 */
export function contactOutbox(
  store: Pick<ContactStore, 'findById' | 'withPendingEvents' | 'clearPendingEvent'>,
): OutboxSource {
  return {
    name: 'contacts',
    async withPending(limit) {
      const contacts = await store.withPendingEvents(limit);
      return contacts.map((contact) => ({
        _id: contactOutboxKey(contact.company_id, contact.id),
        events: pendingInOrder(contact),
      }));
    },
    async pendingOf(key) {
      const contact = await store.findById(...fromOutboxKey(key));
      return contact ? pendingInOrder(contact) : [];
    },
    async clear(key, eventIds) {
      const [company_id, id] = fromOutboxKey(key);
      for (const eventId of eventIds) await store.clearPendingEvent(company_id, id, eventId);
    },
  };
}
