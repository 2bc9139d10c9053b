import type { Connection } from 'mongoose';
import { Schema } from 'mongoose';

/** The one counter of the live event ids: the last id any writer has reserved. */
interface IdCounter {
  _id: 'seq';
  value: number;
}

const counterSchema = new Schema<IdCounter>(
  { _id: { type: String, required: true }, value: { type: Number, required: true } },
  { collection: 'live_event_marks', versionKey: false },
);

/**
 * Where the live events' ids come from: a counter shared by the replicas, reserved a block at a
 * time by whichever replica writes the feed, so that ids keep increasing when another replica
 * takes over the writing.
 */
export function createLiveEventIds(db: Connection) {
  const Counter = db.model('LiveEventMark', counterSchema);
  return {
    init: () => Counter.init(),

    /** Reserves `count` ids in a row; answers the first. */
    async reserve(count: number): Promise<number> {
      const counter = await Counter.findOneAndUpdate(
        { _id: 'seq' },
        { $inc: { value: count } },
        { upsert: true, returnDocument: 'after' },
      )
        .lean<IdCounter>()
        .exec();
      return counter!.value - count + 1;
    },
  };
}

export type LiveEventIds = ReturnType<typeof createLiveEventIds>;
