import { Schema, type Connection } from 'mongoose';
import type { OutboxFields } from '@switchboard/service-kit';
import {
  addToOutbox,
  newOutbox,
  outboxSchemaFields,
  outboxSource,
  isDuplicateKeyError,
} from '@switchboard/service-kit';
import type { BrokerEvent, StoredMessageStatus } from '@switchboard/contracts';
import { op } from './mongo-helpers';

export type Direction = 'inbound' | 'outbound';
/** The statuses the provider reports and a message can reach (ARCHITECTURE §8). */
export type DeliveryStatus = 'sent' | 'delivered' | 'read' | 'failed';

export interface HistoryEntry {
  status: string;
  at: Date;
  /** False when the status arrived late or repeated and did not move the message. */
  applied: boolean;
}

export interface StoredMessage extends OutboxFields {
  /** `String(id)`: a string `_id` is the one lookup the local document database serves without a scan. */
  _id: string;
  id: number;
  company_id: number;
  contact_id: number;
  phone: string;
  direction: Direction;
  type: string;
  message: string;
  /** The provider's id; `pending:<id>` until the provider accepted an outbound message. */
  wamid: string;
  status: StoredMessageStatus;
  error: string | null;
  status_times: Partial<Record<DeliveryStatus, Date>>;
  history: HistoryEntry[];
  /** Provider statuses already recorded: a repeated webhook changes nothing (wamid + status). */
  statuses_seen: string[];
  /** The Cloud API body of an outbound message (JSON), so an interrupted send can be resumed. */
  request_json: string | null;
  /** The provider's message as received (JSON), for inbound messages. */
  raw_json: string | null;
  idempotency_key: string | null;
  campaign_id: number | null;
  /** The month whose quota place this message holds (given back if the provider refuses it). */
  quota_month: string | null;
  /** A send in progress holds this lease; an expired lease lets a retry take the send over. */
  lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const pendingWamid = (id: number) => `pending:${id}`;
export const hasRealWamid = (message: Pick<StoredMessage, 'wamid'>) =>
  !message.wamid.startsWith('pending:');

const messageSchema = new Schema<StoredMessage>(
  {
    _id: { type: String, required: true },
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    contact_id: { type: Number, required: true },
    phone: { type: String, required: true },
    direction: { type: String, enum: ['inbound', 'outbound'], required: true },
    type: { type: String, required: true },
    message: { type: String, default: '' },
    wamid: { type: String, required: true },
    status: { type: String, required: true },
    error: { type: String, default: null },
    status_times: { type: Schema.Types.Mixed, default: {} },
    history: { type: Schema.Types.Mixed, default: [] },
    statuses_seen: { type: [String], default: [] },
    request_json: { type: String, default: null },
    raw_json: { type: String, default: null },
    idempotency_key: { type: String, default: null },
    campaign_id: { type: Number, default: null },
    quota_month: { type: String, default: null },
    lease_until: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'messages', versionKey: false, minimize: false },
);
// Inbound deduplication: a provider message is stored once however often it arrives.
messageSchema.index({ wamid: 1 }, { unique: true });
messageSchema.index({ company_id: 1, contact_id: 1, id: -1 });
messageSchema.index({ pending_ids: 1 });
// The recovery job looks for sends left pending (equality on `status`, then the lease).
messageSchema.index({ status: 1, lease_until: 1 });

/** `_id: wamid` → the message: status webhooks find their message without a scan. */
interface WamidKey {
  _id: string;
  message_id: number;
  company_id: number;
}
const wamidKeySchema = new Schema<WamidKey>(
  {
    _id: { type: String, required: true },
    message_id: { type: Number, required: true },
    company_id: { type: Number, required: true },
  },
  { collection: 'wamid_keys', versionKey: false },
);

export type NewMessage = Omit<
  StoredMessage,
  '_id' | 'pending_events' | 'pending_ids' | 'history' | 'statuses_seen' | 'status_times'
> &
  Partial<Pick<StoredMessage, 'history' | 'status_times'>>;

export function createMessageStore(db: Connection) {
  const Messages = db.model<StoredMessage>('Message', messageSchema);
  const WamidKeys = db.model<WamidKey>('WamidKey', wamidKeySchema);

  const byId = (id: number) => Messages.findById(String(id)).lean<StoredMessage>().exec();

  return {
    init: () => Promise.all([Messages.init(), WamidKeys.init()]),
    outbox: outboxSource('messages', Messages),

    /** Stores a message with its events; `duplicate` when its wamid is already stored. */
    async insert(message: NewMessage, events: BrokerEvent[]): Promise<'inserted' | 'duplicate'> {
      try {
        await Messages.create({
          history: [],
          status_times: {},
          ...message,
          _id: String(message.id),
          statuses_seen: [],
          ...newOutbox(events),
        });
      } catch (error) {
        if (isDuplicateKeyError(error)) return 'duplicate';
        throw error;
      }
      if (hasRealWamid(message)) await this.rememberWamid(message);
      return 'inserted';
    },

    /** An insert, not an upsert: on the local database an insert costs the same at any size. */
    async rememberWamid(message: Pick<StoredMessage, 'wamid' | 'id' | 'company_id'>) {
      await WamidKeys.create({
        _id: message.wamid,
        message_id: message.id,
        company_id: message.company_id,
      }).catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
    },

    findById: byId,

    /** The organization's message, or null (also for another organization's id). */
    async findOwn(company_id: number, id: number): Promise<StoredMessage | null> {
      const message = await byId(id);
      return message && message.company_id === company_id ? message : null;
    },

    /** The message a provider id names, through its key (no scan); null when not (yet) known. */
    async findByWamidKey(wamid: string): Promise<StoredMessage | null> {
      const key = await WamidKeys.findById(wamid).lean<WamidKey>().exec();
      return key ? byId(key.message_id) : null;
    },

    /** Like findByWamidKey, and else by the message's own wamid (a scan: only when the key is missing). */
    async findByWamid(wamid: string): Promise<StoredMessage | null> {
      const keyed = await this.findByWamidKey(wamid);
      if (keyed) return keyed;
      // The key is written just after the message; a crash in between leaves only the message.
      const message = await Messages.findOne({ wamid }).lean<StoredMessage>().exec();
      if (message) await this.rememberWamid(message);
      return message;
    },

    /** Takes the send of a pending message, unless another attempt holds a live lease on it. */
    async claim(id: number, now: Date, leaseMs: number): Promise<StoredMessage | null> {
      return Messages.findOneAndUpdate(
        {
          _id: String(id),
          status: 'pending',
          $or: [{ lease_until: null }, { lease_until: op({ $lte: now }) }],
        },
        { $set: { lease_until: new Date(now.getTime() + leaseMs), updated_at: now } },
        { returnDocument: 'after' },
      )
        .lean<StoredMessage>()
        .exec();
    },

    /** Sends still pending whose lease ran out before `before`: their process died mid-send. */
    interrupted(before: Date, limit: number): Promise<StoredMessage[]> {
      return Messages.find({ status: 'pending', lease_until: op({ $lt: before }) })
        .limit(limit)
        .lean<StoredMessage[]>()
        .exec();
    },

    /** Lets another attempt take the send over at once (a command going back to the broker). */
    async releaseLease(id: number, now: Date): Promise<void> {
      await Messages.updateOne(
        { _id: String(id), status: 'pending' },
        { $set: { lease_until: now, updated_at: now } },
      );
    },

    /**
     * The provider accepted the message: it is sent, with its wamid and events. Written by `_id`
     * alone (the local database reads the whole collection for any other filter): the caller
     * holds the send's lease and has checked the message is still pending.
     */
    async markAccepted(
      message: Pick<StoredMessage, 'id' | 'company_id'>,
      wamid: string,
      now: Date,
      events: BrokerEvent[],
    ): Promise<void> {
      // The key first: a status webhook can then always find the message by its key alone.
      await this.rememberWamid({ wamid, id: message.id, company_id: message.company_id });
      const outbox = addToOutbox(events);
      await Messages.updateOne(
        { _id: String(message.id) },
        {
          $set: {
            wamid,
            status: 'sent',
            'status_times.sent': now,
            lease_until: null,
            updated_at: now,
            ...outbox.set,
          },
          $push: { history: { status: 'sent', at: now, applied: true } },
          $addToSet: outbox.addToSet,
        },
      );
    },

    /** The provider refused the message: it failed with the provider's error text (as markAccepted). */
    async markRefused(id: number, error: string, now: Date, events: BrokerEvent[]): Promise<void> {
      const outbox = addToOutbox(events);
      await Messages.updateOne(
        { _id: String(id) },
        {
          $set: {
            status: 'failed',
            error,
            'status_times.failed': now,
            lease_until: null,
            updated_at: now,
            ...outbox.set,
          },
          $push: { history: { status: 'failed', at: now, applied: true } },
          $addToSet: outbox.addToSet,
        },
      );
    },

    /**
     * Records a provider status in the message's history, once per status (`statuses_seen`),
     * and — when `moves` — moves the message to it with its events, in one write by `_id`. The
     * caller decided `moves` from the message as it read it, holding the message's lock.
     */
    async recordStatus(
      id: number,
      status: string,
      at: Date,
      change: { moves: boolean; error: string | null },
      now: Date,
      events: BrokerEvent[],
    ): Promise<void> {
      const outbox = addToOutbox(change.moves ? events : []);
      await Messages.updateOne(
        { _id: String(id) },
        {
          $set: {
            updated_at: now,
            ...(change.moves
              ? {
                  status,
                  [`status_times.${status}`]: at,
                  ...(status === 'failed' ? { error: change.error } : {}),
                  ...outbox.set,
                }
              : {}),
          },
          $push: { history: { status, at, applied: change.moves } },
          $addToSet: { statuses_seen: status, ...outbox.addToSet },
        },
      );
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

export type MessageStore = ReturnType<typeof createMessageStore>;

/** A contact's messages, those older than `before_id` when given. */
function contactFilter(company_id: number, contact_id: number, before_id?: number) {
  return { company_id, contact_id, ...(before_id ? { id: op({ $lt: before_id }) } : {}) };
}
