import { Schema, trusted, type Connection } from 'mongoose';
import { BatchInserter, type InsertOutcome } from './batch-inserter';
import {
  DELIVERY_LOG_STATES,
  EVENT_NAMES,
  type DeliveryLogState,
  type EventName,
} from '@switchboard/contracts';

export type DeliveryKind = 'event' | 'test' | 'redelivery';

/**
 * What an event sends to every webhook of its organization that subscribes to it, stored once
 * for all of them (not once per webhook: the payload is most of a delivery's bytes) and never
 * changed. Its `_id` is `<organization>:<event id>`.
 */
export interface StoredEventPayload {
  _id: string;
  company_id: number;
  event_id: string;
  event: EventName;
  /** The envelope, serialized once: every attempt to every webhook sends exactly these bytes. */
  payload: string;
  /** The webhooks it was made for; a deleted webhook leaves, and the last one takes it along. */
  webhook_ids: number[];
  created_at: Date;
}

export const eventPayloadId = (companyId: number, eventId: string) => `${companyId}:${eventId}`;

/**
 * A delivery of its own: a test delivery or a redelivery (and, in data written before event
 * payloads were shared, every delivery). Written once when the delivery is made, never changed.
 */
export interface StoredDelivery {
  _id: string;
  webhook_id: number;
  company_id: number;
  /** The event id, sent as `X-Webhook-Id` and `webhook-id` on every attempt. */
  event_id: string;
  event: EventName;
  /** The envelope, serialized once: every attempt sends exactly these bytes. */
  payload: string;
  kind: DeliveryKind;
  /** The webhook's generation when the delivery was made; a pause starts a new one. */
  generation: number;
  created_at: Date;
}

/**
 * One attempt (the published delivery log row). Its `_id` is `<delivery id>:<attempt>`, so the log is also the record
 * of which attempts were made: a second row for the same attempt is refused by the database.
 */
export interface StoredDeliveryLog {
  _id: string;
  webhook_id: number;
  company_id: number;
  delivery_id: string;
  event_id: string;
  event: EventName;
  attempt: number;
  max_attempts: number;
  state: DeliveryLogState;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
  created_at: Date;
}

export const logIdFor = (deliveryId: string, attempt: number) => `${deliveryId}:${attempt}`;

/**
 * An event's delivery to one webhook, `<event id>.<webhook id>`: one event and one webhook make one
 * delivery, whatever the number of times the event arrives.
 */
export const eventDeliveryId = (eventId: string, webhookId: number) => `${eventId}.${webhookId}`;

/**
 * A log row as stored: one is written for every attempt, so it leaves out what its `_id` already
 * says (`<delivery id>:<attempt>`), the event id when the delivery id says it (an event's
 * delivery), and the outcome fields that are null. Rows written before carry them all;
 * {@link fullLog} puts them back on reading, so every reader sees a whole row.
 */
type StoredLogDocument = Omit<
  StoredDeliveryLog,
  | 'delivery_id'
  | 'attempt'
  | 'event_id'
  | 'response_status'
  | 'response_body'
  | 'error'
  | 'duration_ms'
> &
  Partial<StoredDeliveryLog>;

function compactLog(row: StoredDeliveryLog): StoredLogDocument {
  const stored: StoredLogDocument = {
    _id: row._id,
    webhook_id: row.webhook_id,
    company_id: row.company_id,
    event: row.event,
    max_attempts: row.max_attempts,
    state: row.state,
    created_at: row.created_at,
  };
  if (logIdFor(row.delivery_id, row.attempt) !== row._id) {
    stored.delivery_id = row.delivery_id;
    stored.attempt = row.attempt;
  }
  if (eventDeliveryId(row.event_id, row.webhook_id) !== row.delivery_id) {
    stored.event_id = row.event_id;
  }
  if (row.response_status !== null) stored.response_status = row.response_status;
  if (row.response_body !== null) stored.response_body = row.response_body;
  if (row.error !== null) stored.error = row.error;
  if (row.duration_ms !== null) stored.duration_ms = row.duration_ms;
  return stored;
}

/** A stored log row, compact or whole, as the whole row. */
function fullLog(stored: StoredLogDocument): StoredDeliveryLog {
  const cut = stored._id.lastIndexOf(':');
  const delivery_id = stored.delivery_id ?? stored._id.slice(0, cut);
  const suffix = `.${stored.webhook_id}`;
  return {
    _id: stored._id,
    webhook_id: stored.webhook_id,
    company_id: stored.company_id,
    delivery_id,
    event_id:
      stored.event_id ??
      (delivery_id.endsWith(suffix) ? delivery_id.slice(0, -suffix.length) : delivery_id),
    event: stored.event,
    attempt: stored.attempt ?? Number(stored._id.slice(cut + 1)),
    max_attempts: stored.max_attempts,
    state: stored.state,
    response_status: stored.response_status ?? null,
    response_body: stored.response_body ?? null,
    error: stored.error ?? null,
    duration_ms: stored.duration_ms ?? null,
    created_at: stored.created_at,
  };
}

const deliverySchema = new Schema<StoredDelivery>(
  {
    _id: { type: String, required: true },
    webhook_id: { type: Number, required: true, index: true },
    company_id: { type: Number, required: true },
    event_id: { type: String, required: true },
    event: { type: String, enum: EVENT_NAMES, required: true },
    payload: { type: String, required: true },
    kind: { type: String, required: true },
    generation: { type: Number, required: true },
    created_at: { type: Date, required: true, index: true },
  },
  { collection: 'deliveries', versionKey: false, _id: false },
);

const eventPayloadSchema = new Schema<StoredEventPayload>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    event_id: { type: String, required: true },
    event: { type: String, enum: EVENT_NAMES, required: true },
    payload: { type: String, required: true },
    webhook_ids: { type: [Number], required: true },
    created_at: { type: Date, required: true, index: true },
  },
  { collection: 'event_payloads', versionKey: false, _id: false },
);
// A deleted webhook's share of the payloads is found by its id.
eventPayloadSchema.index({ webhook_ids: 1 });

const logSchema = new Schema<StoredLogDocument>(
  {
    _id: { type: String, required: true },
    webhook_id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    // Left out of rows whose `_id` (and delivery id) say them; see compactLog.
    delivery_id: { type: String },
    event_id: { type: String },
    event: { type: String, enum: EVENT_NAMES, required: true },
    attempt: { type: Number },
    max_attempts: { type: Number, required: true },
    state: { type: String, enum: DELIVERY_LOG_STATES, required: true },
    response_status: { type: Number },
    response_body: { type: String },
    error: { type: String },
    duration_ms: { type: Number },
    created_at: { type: Date, required: true, index: true },
  },
  { collection: 'delivery_logs', versionKey: false, _id: false },
);
logSchema.index({ webhook_id: 1, created_at: -1 });

/**
 * Deliveries and their logs. Every write on the delivery path is an insert and every read is by
 * `_id`: both stay fast on the document database, whose updates scan (docs/benchmarks.md).
 */
export function createDeliveryStore(db: Connection) {
  const Deliveries = db.model<StoredDelivery>('Delivery', deliverySchema);
  const EventPayloads = db.model<StoredEventPayload>('EventPayload', eventPayloadSchema);
  const Logs = db.model<StoredLogDocument>('DeliveryLog', logSchema);
  // An event's payload is written before its first attempts, so when the database is idle its
  // batch waits for no timer: it goes at the end of the turn that brought the event (with the
  // events of the same socket read). While a payload insert is under way the next ones gather
  // and go 2 ms after it returns: under load batches grow, and only then is there a wait. A log
  // row only holds back the event's acknowledgement, so its batch waits longer: 50 ms when the
  // database is idle, so that at a steady pace (events tens of ms apart) the rows of several
  // events share one insert instead of one each, and 10 ms after an insert under way returned, so
  // that under load acks (and the prefetch window) move on quickly.
  const payloadInserts = new BatchInserter(EventPayloads, {
    windowMs: 0,
    loadedWindowMs: 2,
    maxInFlight: 1,
  });
  const logInserts = new BatchInserter(Logs, { windowMs: 50, loadedWindowMs: 10, maxInFlight: 1 });

  return {
    init: () => Promise.all([Deliveries.init(), EventPayloads.init(), Logs.init()]),

    /** Stores an event's payload; one stored already (the event arrived before) is left as is. */
    insertEventPayload(payload: StoredEventPayload): Promise<InsertOutcome> {
      return payloadInserts.insert(payload);
    },

    async insert(delivery: StoredDelivery): Promise<void> {
      await Deliveries.create(delivery);
    },

    /** What a logged attempt sent: its event's payload, or its own delivery's. */
    async findSent(
      log: Pick<StoredDeliveryLog, 'company_id' | 'event_id' | 'delivery_id'>,
    ): Promise<Pick<StoredDelivery, 'event_id' | 'event' | 'payload'> | null> {
      const shared = await EventPayloads.findOne({
        _id: eventPayloadId(log.company_id, log.event_id),
        company_id: log.company_id,
      })
        .lean<StoredEventPayload>()
        .exec();
      return (
        shared ??
        Deliveries.findOne({ _id: log.delivery_id, company_id: log.company_id })
          .lean<StoredDelivery>()
          .exec()
      );
    },

    async attemptLogged(deliveryId: string, attempt: number): Promise<boolean> {
      return (await Logs.exists({ _id: logIdFor(deliveryId, attempt) })) !== null;
    },

    /** Records an attempt; null when that attempt was recorded already (a duplicate ran it). */
    async insertLog(row: Omit<StoredDeliveryLog, '_id'>): Promise<StoredDeliveryLog | null> {
      const stored = { _id: logIdFor(row.delivery_id, row.attempt), ...row };
      return (await logInserts.insert(compactLog(stored))) === 'inserted' ? stored : null;
    },

    async deleteLog(id: string): Promise<void> {
      await Logs.deleteOne({ _id: id });
    },

    /** Lets the inserts under way finish (on shutdown). */
    async drain(): Promise<void> {
      await Promise.all([payloadInserts.drain(), logInserts.drain()]);
    },

    async listLogs(
      webhook_id: number,
      query: { page: number; limit: number; state?: DeliveryLogState },
    ): Promise<{ rows: StoredDeliveryLog[]; total: number }> {
      const filter = query.state ? { webhook_id, state: query.state } : { webhook_id };
      const [rows, total] = await Promise.all([
        Logs.find(filter)
          .sort({ created_at: -1, _id: -1 })
          .skip((query.page - 1) * query.limit)
          .limit(query.limit)
          .lean<StoredLogDocument[]>()
          .exec(),
        Logs.countDocuments(filter).exec(),
      ]);
      return { rows: rows.map(fullLog), total };
    },

    async findLog(webhook_id: number, id: string): Promise<StoredDeliveryLog | null> {
      const stored = await Logs.findOne({ _id: id, webhook_id }).lean<StoredLogDocument>().exec();
      return stored && fullLog(stored);
    },

    /**
     * The payload each logged attempt sent, by log row `_id`: its event's, else its own
     * delivery's (test deliveries, and data written before event payloads were shared).
     */
    async payloadsOf(
      rows: Array<Pick<StoredDeliveryLog, '_id' | 'company_id' | 'event_id' | 'delivery_id'>>,
    ): Promise<Map<string, string>> {
      // With the organization in the filter, so that a sharded collection asks one shard.
      const company_id = trusted({ $in: [...new Set(rows.map((row) => row.company_id))] });
      const shared = await EventPayloads.find(
        {
          _id: trusted({ $in: rows.map((row) => eventPayloadId(row.company_id, row.event_id)) }),
          company_id,
        },
        { payload: 1, company_id: 1 },
      )
        .lean<Array<Pick<StoredEventPayload, '_id' | 'payload' | 'company_id'>>>()
        .exec();
      const byEvent = new Map(shared.map((found) => [found._id, found.payload]));
      const rest = rows.filter((row) => !byEvent.has(eventPayloadId(row.company_id, row.event_id)));
      const own = rest.length
        ? await Deliveries.find(
            { _id: trusted({ $in: [...new Set(rest.map((row) => row.delivery_id))] }), company_id },
            { payload: 1 },
          )
            .lean<Array<Pick<StoredDelivery, '_id' | 'payload'>>>()
            .exec()
        : [];
      const byDelivery = new Map(own.map((found) => [found._id, found.payload]));
      const payloads = new Map<string, string>();
      for (const row of rows) {
        const payload =
          byEvent.get(eventPayloadId(row.company_id, row.event_id)) ??
          byDelivery.get(row.delivery_id);
        if (payload !== undefined) payloads.set(row._id, payload);
      }
      return payloads;
    },

    /**
     * Everything kept for a deleted webhook: its deliveries and logs, and its share of event
     * payloads (a payload goes once no webhook it was made for is left).
     */
    async deleteForWebhook(webhook_id: number): Promise<void> {
      await Deliveries.deleteMany({ webhook_id });
      await EventPayloads.deleteMany({ webhook_ids: [webhook_id] });
      await EventPayloads.updateMany(
        { webhook_ids: webhook_id },
        { $pull: { webhook_ids: webhook_id } },
      );
      await Logs.deleteMany({ webhook_id });
    },

    /** Retention: logs older than `logsBefore`; deliveries (the payloads) older than `deliveriesBefore`. */
    async deleteOld(logsBefore: Date, deliveriesBefore: Date): Promise<number> {
      const logs = await Logs.deleteMany({ created_at: trusted({ $lt: logsBefore }) });
      const old = { created_at: trusted({ $lt: deliveriesBefore }) };
      const deliveries = await Deliveries.deleteMany(old);
      const payloads = await EventPayloads.deleteMany(old);
      return logs.deletedCount + deliveries.deletedCount + payloads.deletedCount;
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
