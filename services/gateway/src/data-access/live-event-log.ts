import mongoose, { Schema, type Connection } from 'mongoose';
import { isDuplicateKeyError } from '@switchboard/service-kit';

/**
 * One event of the live event log: what the console's streams send, kept for a while so that a
 * client reconnecting (to any gateway replica) gets what it missed. `_id` is the event's own id,
 * so a redelivered event is never logged twice; `seq` is its place in the log, given in the
 * order events arrived, and is the stream's `id:`.
 */
export interface LoggedEvent {
  _id: string;
  seq: number;
  company_id: number;
  event: string;
  /** The event as JSON text, exactly as the stream sends it. */
  body: string;
  logged_at: Date;
}

/** The log's counters: `seq`, the last id given out; `floor`, the first id still kept. */
interface LogMark {
  _id: 'seq' | 'floor';
  value: number;
}

const eventSchema = new Schema<LoggedEvent>(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true, unique: true },
    company_id: { type: Number, required: true },
    event: { type: String, required: true },
    body: { type: String, required: true },
    logged_at: { type: Date, required: true },
  },
  { collection: 'live_events', versionKey: false },
);
eventSchema.index({ company_id: 1, seq: 1 });

const markSchema = new Schema<LogMark>(
  { _id: { type: String, required: true }, value: { type: Number, required: true } },
  { collection: 'live_event_marks', versionKey: false },
);

const op = <T extends object>(operator: T): T => mongoose.trusted(operator);

export function createLiveEventLog(db: Connection) {
  const Events = db.model('LiveEvent', eventSchema);
  const Marks = db.model('LiveEventMark', markSchema);

  async function mark(name: LogMark['_id']): Promise<number> {
    const found = await Marks.findById(name).lean<LogMark>().exec();
    return found?.value ?? (name === 'floor' ? 1 : 0);
  }

  return {
    async init(): Promise<void> {
      await Promise.all([Events.init(), Marks.init()]);
    },

    /** Reserves `count` ids in a row; answers the first. */
    async reserve(count: number): Promise<number> {
      const counter = await Marks.findOneAndUpdate(
        { _id: 'seq' },
        { $inc: { value: count } },
        { upsert: true, returnDocument: 'after' },
      )
        .lean<LogMark>()
        .exec();
      return counter!.value - count + 1;
    },

    /** The last id given out (0 before any). */
    lastSeq: () => mark('seq'),
    /** The first id still kept: a client whose last id is below `floor - 1` missed events. */
    floor: () => mark('floor'),

    /**
     * Writes a batch in one command; answers the events that were logged before (a redelivery),
     * as they were logged, so that their first ids stand.
     */
    async append(events: LoggedEvent[]): Promise<LoggedEvent[]> {
      if (events.length === 0) return [];
      const duplicates: string[] = [];
      try {
        await Events.insertMany(events, { ordered: false, lean: true });
      } catch (error) {
        const writeErrors = (error as { writeErrors?: { index: number; err?: unknown }[] })
          .writeErrors;
        if (!writeErrors) {
          if (isDuplicateKeyError(error) && events.length === 1) duplicates.push(events[0]!._id);
          else throw error;
        } else {
          for (const failed of writeErrors) {
            const cause = failed.err ?? failed;
            if (!isDuplicateKeyError(cause)) throw error;
            duplicates.push(events[failed.index]!._id);
          }
        }
      }
      if (duplicates.length === 0) return [];
      return Events.find({ _id: op({ $in: duplicates }) })
        .lean<LoggedEvent[]>()
        .exec();
    },

    /** The organization's events after `afterSeq`, oldest first, at most `limit`. */
    readAfter(company_id: number, afterSeq: number, limit: number): Promise<LoggedEvent[]> {
      return Events.find({ company_id, seq: op({ $gt: afterSeq }) })
        .sort({ seq: 1 })
        .limit(limit)
        .lean<LoggedEvent[]>()
        .exec();
    },

    /**
     * Forgets events logged before `cutoff`, and all but the last `maxEvents`. The floor moves
     * first, so a client is told to reload rather than resumed over a hole.
     */
    async trim(cutoff: Date, maxEvents: number): Promise<void> {
      const [last, newestExpired] = await Promise.all([
        mark('seq'),
        Events.findOne({ logged_at: op({ $lt: cutoff }) })
          .sort({ seq: -1 })
          .lean<LoggedEvent>()
          .exec(),
      ]);
      const floor = Math.max((newestExpired?.seq ?? 0) + 1, last - maxEvents + 1, 1);
      await Marks.updateOne({ _id: 'floor' }, { $max: { value: floor } }, { upsert: true });
      await Events.deleteMany({ seq: op({ $lt: floor }) });
    },
  };
}

export type LiveEventLog = ReturnType<typeof createLiveEventLog>;
