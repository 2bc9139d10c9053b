import { Schema, trusted, type Connection } from 'mongoose';
import { BatchInserter, type InsertOutcome } from './batch-inserter';
import {
  DELIVERY_LOG_STATES,
  EVENT_NAMES,
  type DeliveryLogState,
  type EventName,
} from '@switchboard/contracts';

export type DeliveryKind = 'event' | 'test' | 'redelivery';

/** What to send, written once when the delivery is made and never changed. */
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

const logSchema = new Schema<StoredDeliveryLog>(
  {
    _id: { type: String, required: true },
    webhook_id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    delivery_id: { type: String, required: true },
    event_id: { type: String, required: true },
    event: { type: String, enum: EVENT_NAMES, required: true },
    attempt: { type: Number, required: true },
    max_attempts: { type: Number, required: true },
    state: { type: String, enum: DELIVERY_LOG_STATES, required: true },
    response_status: { type: Number, default: null },
    response_body: { type: String, default: null },
    error: { type: String, default: null },
    duration_ms: { type: Number, default: null },
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
  const Logs = db.model<StoredDeliveryLog>('DeliveryLog', logSchema);
  // A delivery is written before its first attempt, so its batch waits 2 ms at most; a log row
  // only holds back the event's acknowledgement, so its batch waits longer and gathers more rows
  // when events come steadily rather than in bursts.
  const deliveryInserts = new BatchInserter(Deliveries, { windowMs: 2 });
  const logInserts = new BatchInserter(Logs, { windowMs: 10 });

  return {
    init: () => Promise.all([Deliveries.init(), Logs.init()]),

    /** Inserts what is new; a delivery that exists already (a repeated event) is left as is. */
    insertMany(deliveries: StoredDelivery[]): Promise<InsertOutcome[]> {
      return Promise.all(deliveries.map((delivery) => deliveryInserts.insert(delivery)));
    },

    async insert(delivery: StoredDelivery): Promise<void> {
      await Deliveries.create(delivery);
    },

    find(id: string): Promise<StoredDelivery | null> {
      return Deliveries.findById(id).lean<StoredDelivery>().exec();
    },

    async attemptLogged(deliveryId: string, attempt: number): Promise<boolean> {
      return (await Logs.exists({ _id: logIdFor(deliveryId, attempt) })) !== null;
    },

    /** Records an attempt; null when that attempt was recorded already (a duplicate ran it). */
    async insertLog(row: Omit<StoredDeliveryLog, '_id'>): Promise<StoredDeliveryLog | null> {
      const stored = { _id: logIdFor(row.delivery_id, row.attempt), ...row };
      return (await logInserts.insert(stored)) === 'inserted' ? stored : null;
    },

    async deleteLog(id: string): Promise<void> {
      await Logs.deleteOne({ _id: id });
    },

    /** Lets the inserts under way finish (on shutdown). */
    async drain(): Promise<void> {
      await Promise.all([deliveryInserts.drain(), logInserts.drain()]);
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
          .lean<StoredDeliveryLog[]>()
          .exec(),
        Logs.countDocuments(filter).exec(),
      ]);
      return { rows, total };
    },

    findLog(webhook_id: number, id: string): Promise<StoredDeliveryLog | null> {
      return Logs.findOne({ _id: id, webhook_id }).lean<StoredDeliveryLog>().exec();
    },

    async payloads(ids: string[]): Promise<Map<string, string>> {
      const found = await Promise.all(ids.map((id) => Deliveries.findById(id, { payload: 1 })));
      return new Map(
        found.flatMap((delivery) => (delivery ? [[delivery._id, delivery.payload] as const] : [])),
      );
    },

    async deleteForWebhook(webhook_id: number): Promise<void> {
      await Deliveries.deleteMany({ webhook_id });
      await Logs.deleteMany({ webhook_id });
    },

    /** Retention: logs older than `logsBefore`; deliveries (the payloads) older than `deliveriesBefore`. */
    async deleteOld(logsBefore: Date, deliveriesBefore: Date): Promise<number> {
      const logs = await Logs.deleteMany({ created_at: trusted({ $lt: logsBefore }) });
      const deliveries = await Deliveries.deleteMany({
        created_at: trusted({ $lt: deliveriesBefore }),
      });
      return logs.deletedCount + deliveries.deletedCount;
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
