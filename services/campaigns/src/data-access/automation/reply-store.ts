import mongoose, { Schema, type Connection } from 'mongoose';
import type { AutomatedReplyKind, ReplyButton } from '@switchboard/contracts';
import { findOwn, findPage } from '@switchboard/service-kit';

/**
 * An automated reply. `_id` is `String(id)`, so reads and writes by id take the local
 * database's fast path; every lookup checks the organization. `match_keys` are the triggers
 * normalized once at write time (no collation on the local database, ARCHITECTURE §11).
 */
export interface StoredReply {
  _id: string;
  id: number;
  company_id: number;
  name: string;
  kind: AutomatedReplyKind;
  triggers: string[];
  match_keys: string[];
  message: string;
  header: string | null;
  footer: string | null;
  buttons: ReplyButton[];
  image: string | null;
  next_reply_id: number | null;
  active: boolean;
  used: number;
  created_at: Date;
  updated_at: Date;
}

const replySchema = new Schema<StoredReply>(
  {
    _id: { type: String, required: true },
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    name: { type: String, required: true },
    kind: { type: String, required: true },
    triggers: { type: [String], default: [] },
    match_keys: { type: [String], default: [] },
    message: { type: String, required: true },
    header: { type: String, default: null },
    footer: { type: String, default: null },
    buttons: { type: Schema.Types.Mixed, default: [] },
    image: { type: String, default: null },
    next_reply_id: { type: Number, default: null },
    active: { type: Boolean, required: true },
    used: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'automated_replies', versionKey: false, minimize: false },
);
// Listing (by organization, in id order) and matching (an organization's active replies).
replySchema.index({ company_id: 1, id: 1 });
replySchema.index({ company_id: 1, active: 1 });

export type ReplyChanges = Partial<
  Omit<StoredReply, '_id' | 'id' | 'company_id' | 'used' | 'created_at'>
>;

export function createReplyStore(db: Connection) {
  const Replies = db.model<StoredReply>('AutomatedReply', replySchema);

  return {
    init: () => Replies.init(),

    async insert(reply: StoredReply): Promise<void> {
      await Replies.create(reply);
    },

    /** The organization's reply, by id (another organization's is never found). */
    find(company_id: number, id: number): Promise<StoredReply | null> {
      return findOwn(Replies, company_id, id);
    },

    async page(
      company_id: number,
      kind: AutomatedReplyKind | undefined,
      skip: number,
      limit: number,
    ): Promise<{ replies: StoredReply[]; total: number }> {
      const filter = { company_id, ...(kind ? { kind } : {}) };
      const { records, total } = await findPage(Replies, filter, skip, limit);
      return { replies: records, total };
    },

    /** Every active reply of an organization, in id order: what an inbound message is matched against. */
    active(company_id: number): Promise<StoredReply[]> {
      return Replies.find({ company_id, active: true })
        .sort({ id: 1 })
        .lean<StoredReply[]>()
        .exec();
    },

    async update(
      company_id: number,
      id: number,
      changes: ReplyChanges,
    ): Promise<StoredReply | null> {
      await Replies.updateOne(
        { _id: String(id), company_id },
        { $set: { ...changes, updated_at: new Date() } },
      );
      return this.find(company_id, id);
    },

    /** Counts one sending of the reply. */
    async countUse(id: number): Promise<void> {
      await Replies.updateOne({ _id: String(id) }, { $inc: { used: 1 } });
    },

    /** Deletes a reply; replies that chained to it stop chaining. */
    async delete(company_id: number, id: number): Promise<void> {
      await Replies.deleteOne({ _id: String(id), company_id });
      await Replies.updateMany(
        { company_id, next_reply_id: mongoose.trusted({ $eq: id }) },
        { $set: { next_reply_id: null } },
      );
    },
  };
}

export type ReplyStore = ReturnType<typeof createReplyStore>;
