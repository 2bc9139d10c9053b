import { Schema, trusted, type Connection } from 'mongoose';
import type { ProviderRoutingKey } from '@switchboard/contracts';
import {
  insertDocuments,
  isDuplicateKeyError,
  slices,
  stringKeyed,
  type TraceCarrier,
} from '@switchboard/service-kit';

export interface PendingPublication {
  message_id: string;
  routing_key: ProviderRoutingKey;
  waba_id: string;
  field: string;
  /** JSON text: provider payloads may hold keys the document database refuses (`.`, `$`). */
  value_json: string;
}

/** A provider webhook as it arrived, kept for replay and deduplication, and its outbox. */
export interface InboundEvent {
  _id: string;
  company_id: number;
  /** SHA-256 of the raw body: the provider's retry of the same delivery has the same bytes. */
  body_sha256: string;
  raw_body: string;
  state: 'accepted' | 'rejected';
  reason: string | null;
  /**
   * Broker messages still to publish. Not stored with a new event (they are the raw body split
   * up: the relay splits it again if it must); what an older event stored is emptied once the
   * broker confirmed it.
   */
  pending: PendingPublication[];
  received_at: Date;
  /**
   * When the broker had confirmed all of its messages: written with the event when they were
   * published before it was stored (the common path), by the relay otherwise.
   */
  published_at: Date | null;
  /** The trace of the webhook's arrival, continued by its publication (when tracing is on). */
  trace_context?: TraceCarrier;
}

const inboundEventSchema = new Schema<InboundEvent>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    body_sha256: { type: String, required: true },
    raw_body: { type: String, required: true },
    state: { type: String, enum: ['accepted', 'rejected'], required: true },
    reason: { type: String, default: null },
    pending: { type: Schema.Types.Mixed, default: [] },
    received_at: { type: Date, required: true },
    published_at: { type: Date, default: null },
    trace_context: { type: Schema.Types.Mixed },
  },
  { collection: 'inbound_events', versionKey: false },
);
inboundEventSchema.index({ company_id: 1, body_sha256: 1 }, { unique: true });
inboundEventSchema.index({ published_at: 1, received_at: 1 });
inboundEventSchema.index({ received_at: 1 });

export function createInboundEventStore(db: Connection) {
  const Events = db.model('InboundEvent', inboundEventSchema);

  const firstOf = (event: InboundEvent) =>
    Events.findOne({
      company_id: event.company_id,
      body_sha256: event.body_sha256,
    }).lean<InboundEvent>();

  return {
    init: () => Events.init(),

    /**
     * insertOnce for many events in one write: one outcome per event, in order (an Error for an
     * event that could not be stored).
     */
    async insertManyOnce(
      events: InboundEvent[],
    ): Promise<({ event: InboundEvent; duplicate: boolean } | Error)[]> {
      const outcomes: ({ event: InboundEvent; duplicate: boolean } | Error)[] = [];
      for (const slice of slices(events, 50)) {
        // Without `pending`: the publications repeat the raw body, which would double what
        // every webhook writes.
        const stored = slice.map(({ pending: _pending, ...rest }) => rest);
        const failed = await insertDocuments(Events, stored);
        for (const [index, event] of slice.entries()) {
          const failure = failed.get(index);
          if (!failure) outcomes.push({ event, duplicate: false });
          else if (!isDuplicateKeyError(failure)) outcomes.push(new Error('event not stored'));
          else {
            const first = await firstOf(event);
            outcomes.push(
              first ? { event: first, duplicate: true } : new Error('event not stored'),
            );
          }
        }
      }
      return outcomes;
    },

    /** Stores the event; a second arrival of the same bytes returns the first one instead. */
    async insertOnce(event: InboundEvent): Promise<{ event: InboundEvent; duplicate: boolean }> {
      try {
        await Events.create(event);
        return { event, duplicate: false };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const first = await firstOf(event);
        if (!first) throw error;
        return { event: first, duplicate: true };
      }
    },

    /** Clears what the broker confirmed, in as few writes as the database allows. */
    async markManyPublished(ids: string[], now: Date): Promise<void> {
      for (const slice of slices(ids)) {
        await stringKeyed(Events).bulkWrite(
          slice.map((id) => ({
            updateOne: {
              filter: { _id: id },
              update: { $set: { pending: [], published_at: now } },
            },
          })),
          { ordered: false },
        );
      }
    },

    /** Accepted events whose publication has not been confirmed, oldest first. */
    findUnpublished(receivedBefore: Date, limit: number): Promise<InboundEvent[]> {
      return Events.find({
        state: 'accepted',
        published_at: null,
        // Operators written here are ours; sanitizeFilter would otherwise neutralize them.
        received_at: trusted({ $lt: receivedBefore }),
      })
        .sort({ received_at: 1 })
        .limit(limit)
        .lean<InboundEvent[]>()
        .exec();
    },

    async deleteReceivedBefore(cutoff: Date): Promise<number> {
      const { deletedCount } = await Events.deleteMany({ received_at: trusted({ $lt: cutoff }) });
      return deletedCount;
    },

    findById: (id: string) => Events.findById(id).lean<InboundEvent>().exec(),
  };
}

export type InboundEventStore = ReturnType<typeof createInboundEventStore>;
