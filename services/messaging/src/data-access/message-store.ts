import { Schema, type Connection } from 'mongoose';
import type { OutboxFields } from '@switchboard/service-kit';
import {
  addToOutbox,
  slices,
  stringKeyed,
  newOutbox,
  outboxSchemaFields,
  outboxSource,
  isDuplicateKeyError,
  dropIfUnique,
} from '@switchboard/service-kit';
import type { BrokerEvent, MediaDescriptor, StoredMessageStatus } from '@switchboard/contracts';
import { op } from './mongo-helpers';
import { createWriteBatcher } from './write-batcher';

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
  /**
   * Sent for a broker command (a campaign's or an automated answer's): after a crash the command
   * comes back and takes the send over, however long the queue in front of it.
   */
  via_command?: boolean;
  campaign_id: number | null;
  /** The user (agent) who sent it from the console; absent or null for any other send. */
  sent_by_agent_id?: number | null;
  /** The month whose quota place this message holds (given back if the provider refuses it). */
  quota_month: string | null;
  /** A send in progress holds this lease; an expired lease lets a retry take the send over. */
  lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
  /** The file of an inbound image, audio, video, document or sticker, as getMessages shows it. */
  media?: MediaDescriptor;
  /**
   * The organization's number that sent or received it; absent on messages stored before
   * organizations had several numbers (those were the first number's).
   */
  phone_number_id?: string | null;
}

/** A wamid claimed this long ago without its message stored was claimed by a delivery that died. */
const WAMID_CLAIM_TAKEOVER_MS = 60_000;

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
    via_command: { type: Boolean },
    campaign_id: { type: Number, default: null },
    sent_by_agent_id: { type: Number, default: null },
    quota_month: { type: String, default: null },
    lease_until: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    media: { type: Schema.Types.Mixed, default: undefined },
    phone_number_id: { type: String, required: false },
    ...outboxSchemaFields,
  },
  { collection: 'messages', versionKey: false, minimize: false },
);
// Not unique: a unique index must start with the shard key (company_id, _id). A provider message
// is stored once however often it arrives through its `wamid_keys` entry (see `insert`).
messageSchema.index({ wamid: 1 });
messageSchema.index({ company_id: 1, contact_id: 1, id: -1 });
messageSchema.index({ pending_ids: 1 });
// The recovery job looks for sends left pending (equality on `status`, then the lease).
messageSchema.index({ status: 1, lease_until: 1 });

/** `_id: wamid` → the message: status webhooks find their message without a scan. */
interface WamidKey {
  _id: string;
  message_id: number;
  company_id: number;
  /** When an inbound message claimed it (absent on keys of sent messages). */
  claimed_at?: Date;
}
const wamidKeySchema = new Schema<WamidKey>(
  {
    _id: { type: String, required: true },
    message_id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    claimed_at: { type: Date },
  },
  { collection: 'wamid_keys', versionKey: false },
);

/**
 * Statuses to record on one message in one write, decided from the message as it was read: the
 * write happens only if the message is still in that state (its status and how many statuses it
 * has seen), so a change made meanwhile elsewhere makes it match nothing instead of being lost.
 */
export interface StatusChange {
  id: number;
  /** The state the change was decided from. */
  from: { status: StoredMessageStatus; seen: number };
  /** Where the message moves, if anywhere. */
  to: {
    status: StoredMessageStatus;
    times: Partial<Record<DeliveryStatus, Date>>;
    error?: string | null;
  } | null;
  history: HistoryEntry[];
  statuses: string[];
  events: BrokerEvent[];
}

export type NewMessage = Omit<
  StoredMessage,
  '_id' | 'pending_events' | 'pending_ids' | 'history' | 'statuses_seen' | 'status_times'
> &
  Partial<Pick<StoredMessage, 'history' | 'status_times'>>;

interface Acceptance {
  message: Pick<StoredMessage, 'id' | 'company_id'>;
  wamid: string;
  now: Date;
  events: BrokerEvent[];
}

/** The write that records an acceptance, applied only while the message is still pending. */
function acceptanceUpdate({ message, wamid, now, events }: Acceptance) {
  const outbox = addToOutbox(events);
  return {
    filter: { _id: String(message.id), status: 'pending' as const },
    update: {
      $set: {
        wamid,
        status: 'sent' as const,
        'status_times.sent': now,
        lease_until: null,
        updated_at: now,
        ...outbox.set,
      },
      $push: { history: { status: 'sent', at: now, applied: true } },
      $addToSet: outbox.addToSet,
    },
  };
}

/** A bulk write whose only failures are duplicate keys (a key stored before, by a status). */
function onlyDuplicates(error: unknown): boolean {
  const { writeErrors } = (error ?? {}) as { writeErrors?: unknown };
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.length > 0 && list.every((e) => isDuplicateKeyError(e));
}

export function createMessageStore(db: Connection) {
  const Messages = db.model<StoredMessage>('Message', messageSchema);
  const WamidKeys = db.model<WamidKey>('WamidKey', wamidKeySchema);

  const byId = (id: number) => Messages.findById(String(id)).lean<StoredMessage>().exec();

  /**
   * Outbound messages stored pending, before their provider call: concurrent sends' inserts go
   * in one `insertMany`. Each is a new id from this process's block, so none can collide.
   */
  const pendingInserts = createWriteBatcher<StoredMessage>(async (messages) => {
    await Messages.insertMany(messages, { ordered: false, lean: true });
  });

  /**
   * Acceptances of concurrent sends in two commands for all: their wamid keys in one
   * `insertMany` (first, so that a status webhook always finds a sent message by its key), then
   * the messages in one `bulkWrite`. An acceptance whose message was no longer pending matched
   * nothing; which one is not told by the bulk result, so `accepted` reads them back then.
   */
  const acceptances = createWriteBatcher<Acceptance & { matched?: boolean }>(async (items) => {
    const keys = items.map(({ message, wamid }) => ({
      _id: wamid,
      message_id: message.id,
      company_id: message.company_id,
    }));
    try {
      await WamidKeys.insertMany(keys, { ordered: false, lean: true });
    } catch (error) {
      if (!isDuplicateKeyError(error) && !onlyDuplicates(error)) throw error;
    }
    const result = await Messages.bulkWrite(
      items.map((item) => ({ updateOne: acceptanceUpdate(item) })),
      { ordered: false },
    );
    const allMatched = result.matchedCount === items.length;
    for (const item of items) item.matched = allMatched ? true : undefined;
  });

  async function claimWamid(message: NewMessage): Promise<'claimed' | 'duplicate'> {
    const claimed_at = new Date();
    try {
      await WamidKeys.create({
        _id: message.wamid,
        message_id: message.id,
        company_id: message.company_id,
        claimed_at,
      });
      return 'claimed';
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const key = await WamidKeys.findById(message.wamid).lean<WamidKey>().exec();
    if (!key || key.message_id === message.id) return 'claimed';
    if (await byId(key.message_id)) return 'duplicate';
    const age = claimed_at.getTime() - (key.claimed_at?.getTime() ?? 0);
    if (age < WAMID_CLAIM_TAKEOVER_MS) {
      // A concurrent delivery stores its message right after its claim: give it a moment.
      for (let wait = 0; wait < 5; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (await byId(key.message_id)) return 'duplicate';
      }
      throw new Error(`wamid ${message.wamid} is being stored by another delivery; retried later`);
    }
    const taken = await WamidKeys.updateOne(
      { _id: message.wamid, message_id: key.message_id },
      { $set: { message_id: message.id, claimed_at } },
    );
    return taken.modifiedCount === 1 ? 'claimed' : 'duplicate';
  }

  return {
    async init() {
      await dropIfUnique(Messages.collection, 'wamid_1');
      await Promise.all([Messages.init(), WamidKeys.init()]);
    },
    outbox: outboxSource('messages', Messages),

    /**
     * Stores a message with its events; `duplicate` when its wamid is already stored. The wamid's
     * key is claimed first: its unique `_id` is what stores a provider message once (the
     * messages' own unique indexes must start with the shard key). A key claimed by a delivery
     * that died before storing its message is taken over once older than
     * `WAMID_CLAIM_TAKEOVER_MS`; younger, the other delivery may still be storing it, and this
     * one fails to be retried later.
     */
    async insert(message: NewMessage, events: BrokerEvent[]): Promise<'inserted' | 'duplicate'> {
      if (hasRealWamid(message) && (await claimWamid(message)) === 'duplicate') return 'duplicate';
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
      return 'inserted';
    },

    /**
     * Stores a new outbound message, pending, with other sends' messages in one write. Its id is
     * new (allocated for this send), so it cannot collide.
     */
    async insertPending(message: StoredMessage): Promise<void> {
      await pendingInserts.add(message);
    },

    /**
     * As `markAccepted`, written with other sends' acceptances (one command for their wamid keys,
     * one for the messages). False when the message was no longer pending.
     */
    async accepted(
      message: Pick<StoredMessage, 'id' | 'company_id'>,
      wamid: string,
      now: Date,
      events: BrokerEvent[],
    ): Promise<boolean> {
      const item: Acceptance & { matched?: boolean } = { message, wamid, now, events };
      await acceptances.add(item);
      if (item.matched) return true;
      // Some acceptance in the batch matched nothing: this one did if its wamid is not stored.
      const current = await byId(message.id);
      return (
        current?.status === 'sent' &&
        current.wamid === wamid &&
        current.updated_at.getTime() === now.getTime()
      );
    },

    /** Resolves once the batched writes handed over so far are done. */
    drain: () => Promise.all([pendingInserts.drain(), acceptances.drain()]),

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
    /**
     * Pending sends whose lease ended before `before`, and those of broker commands only if it
     * ended before `commandsBefore` (their command is still coming back, behind a queue).
     */
    interrupted(before: Date, commandsBefore: Date, limit: number): Promise<StoredMessage[]> {
      return Messages.find({
        status: 'pending',
        $or: [
          { lease_until: op({ $lt: before }), via_command: op({ $ne: true }) },
          { lease_until: op({ $lt: commandsBefore }) },
        ],
      })
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
     * The provider accepted the message: it is sent, with its wamid and events, in one write by
     * `_id` and `status` (equality on indexed fields, an index lookup on PostgreSQL) that applies
     * only while it is pending. False when it was no longer pending (finished elsewhere).
     */
    async markAccepted(
      message: Pick<StoredMessage, 'id' | 'company_id'>,
      wamid: string,
      now: Date,
      events: BrokerEvent[],
    ): Promise<boolean> {
      // The key first: a status webhook can then always find the message by its key alone.
      await this.rememberWamid({ wamid, id: message.id, company_id: message.company_id });
      const { filter, update } = acceptanceUpdate({ message, wamid, now, events });
      const { matchedCount } = await Messages.updateOne(filter, update);
      return matchedCount === 1;
    },

    /** The provider refused the message: it failed with the provider's error text (as markAccepted). */
    async markRefused(
      id: number,
      error: string,
      now: Date,
      events: BrokerEvent[],
    ): Promise<boolean> {
      const outbox = addToOutbox(events);
      const { matchedCount } = await Messages.updateOne(
        { _id: String(id), status: 'pending' },
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
      return matchedCount === 1;
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

    /**
     * Applies status changes to many messages in as few writes as the database allows (each by
     * `_id`, guarded by the state it was decided from); answers how many found that state.
     */
    async applyStatusChanges(changes: StatusChange[], now: Date): Promise<number> {
      let matched = 0;
      for (const slice of slices(changes)) {
        const result = await stringKeyed(Messages).bulkWrite(
          slice.map((change) => {
            const outbox = addToOutbox(change.events);
            const times = Object.entries(change.to?.times ?? {}).map(
              ([status, at]) => [`status_times.${status}`, at] as const,
            );
            return {
              updateOne: {
                filter: {
                  _id: String(change.id),
                  status: change.from.status,
                  statuses_seen: { $size: change.from.seen },
                },
                update: {
                  $set: {
                    updated_at: now,
                    ...(change.to
                      ? {
                          status: change.to.status,
                          ...Object.fromEntries(times),
                          ...(change.to.error !== undefined ? { error: change.to.error } : {}),
                        }
                      : {}),
                    ...outbox.set,
                  },
                  $push: { history: { $each: change.history } },
                  $addToSet: { statuses_seen: { $each: change.statuses }, ...outbox.addToSet },
                },
              },
            };
          }),
          { ordered: false },
        );
        matched += result.matchedCount;
      }
      return matched;
    },

    /**
     * Records the provider's `sent` of accepted messages without reading them: `sent` never moves
     * a message (acceptance did) and carries no event, so each is one write by `_id`, guarded so
     * that it lands only on the organization's outbound message accepted under that wamid and
     * only once. Answers how many landed; one that did not was a repeat or needs a closer look.
     */
    async recordSentStatuses(
      items: { id: number; wamid: string; company_id: number; at: Date }[],
      now: Date,
    ): Promise<number> {
      let matched = 0;
      for (const slice of slices(items)) {
        const result = await stringKeyed(Messages).bulkWrite(
          slice.map((item) => ({
            updateOne: {
              filter: {
                _id: String(item.id),
                wamid: item.wamid,
                company_id: item.company_id,
                direction: 'outbound',
                statuses_seen: { $ne: 'sent' },
              },
              update: {
                $set: { updated_at: now },
                $push: { history: { status: 'sent', at: item.at, applied: false } },
                $addToSet: { statuses_seen: 'sent' },
              },
            },
          })),
          { ordered: false },
        );
        matched += result.matchedCount;
      }
      return matched;
    },

    /**
     * Moves accepted messages forward to a status without reading them first (their status
     * webhook named the message, its contact and campaign): each is one write by `_id`, guarded
     * so that it lands only on the organization's outbound message accepted under that wamid,
     * from a status the move is allowed from (`from`), with the status not seen before, and
     * writes the move's events with it. Answers how many landed; one that did not was a repeat,
     * out of order, or not what its status said, and needs a closer look.
     */
    async moveWithoutRead(
      items: {
        id: number;
        wamid: string;
        company_id: number;
        contact_id: number;
        campaign_id: number | null;
        phone_number_id: string;
        status: DeliveryStatus;
        from: StoredMessageStatus[];
        at: Date;
        events: BrokerEvent[];
      }[],
      now: Date,
    ): Promise<number> {
      let matched = 0;
      for (const slice of slices(items)) {
        const result = await stringKeyed(Messages).bulkWrite(
          slice.map((item) => {
            const outbox = addToOutbox(item.events);
            return {
              updateOne: {
                filter: {
                  _id: String(item.id),
                  wamid: item.wamid,
                  company_id: item.company_id,
                  contact_id: item.contact_id,
                  campaign_id: item.campaign_id,
                  phone_number_id: item.phone_number_id,
                  direction: 'outbound',
                  status: { $in: item.from },
                  statuses_seen: { $ne: item.status },
                },
                update: {
                  $set: {
                    status: item.status,
                    [`status_times.${item.status}`]: item.at,
                    updated_at: now,
                    ...outbox.set,
                  },
                  $push: { history: { status: item.status, at: item.at, applied: true } },
                  $addToSet: { statuses_seen: item.status, ...outbox.addToSet },
                },
              },
            };
          }),
          { ordered: false },
        );
        matched += result.matchedCount;
      }
      return matched;
    },

    /**
     * An inbound file was fetched (or could not be): the message shows what became of it, and
     * its `message_received`, held until now so that it can say where the file is, is written.
     */
    async recordMedia(id: number, media: MediaDescriptor, events: BrokerEvent[], now: Date) {
      const outbox = addToOutbox(events);
      await Messages.updateOne(
        { _id: String(id) },
        { $set: { media, updated_at: now, ...outbox.set }, $addToSet: outbox.addToSet },
      );
    },

    /** The retention job removed an inbound file: the message says so and links nowhere. */
    async expireMedia(id: number, now: Date): Promise<void> {
      await Messages.updateOne(
        { _id: String(id) },
        { $set: { 'media.status': 'expired', 'media.url': null, updated_at: now } },
      );
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

export type MessageStore = ReturnType<typeof createMessageStore>;

/** A contact's messages, those older than `before_id` when given. */
function contactFilter(company_id: number, contact_id: number, before_id?: number) {
  return { company_id, contact_id, ...(before_id ? { id: op({ $lt: before_id }) } : {}) };
}
