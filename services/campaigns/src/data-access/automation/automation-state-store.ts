import { isDuplicateKeyError } from '@switchboard/service-kit';
import { Schema, type Connection } from 'mongoose';

/**
 * What automation remembers of one contact, `_id` `<company>:<contact>`: every change
 * is a conditional write on this one document (no transactions on the local database).
 * - `first_message_id`: the first inbound message automation saw from the contact; only that
 *   message is a first message (the welcome reply), however often it is redelivered.
 * - `bots_off`: no automated answer at all (a flow handed the contact over to a human).
 * - a one-minute window of answered message ids: the per-contact rate limit, idempotent per
 *   message (a redelivered message finds its id and takes no second place).
 */
export interface AutomationState {
  _id: string;
  company_id: number;
  contact_id: number;
  first_message_id: number | null;
  bots_off: boolean;
  window_start: Date;
  window_count: number;
  window_message_ids: number[];
  updated_at: Date;
}

const stateSchema = new Schema<AutomationState>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    contact_id: { type: Number, required: true },
    first_message_id: { type: Number, default: null },
    bots_off: { type: Boolean, required: true },
    window_start: { type: Date, required: true },
    window_count: { type: Number, required: true },
    window_message_ids: { type: [Number], default: [] },
    updated_at: { type: Date, required: true },
  },
  { collection: 'automation_states', versionKey: false, minimize: false },
);

export const stateKey = (company_id: number, contact_id: number) => `${company_id}:${contact_id}`;

const WINDOW_MS = 60_000;

/** `claimed`: this message takes a place; `repeat`: it already has one; `limited`: none left. */
export type AnswerClaim = 'claimed' | 'repeat' | 'limited';

export function createAutomationStateStore(db: Connection) {
  const States = db.model<AutomationState>('AutomationState', stateSchema);

  const find = (_id: string) => States.findById(_id).lean<AutomationState>().exec();

  /** Creates the contact's document when missing (concurrent creations: one wins, all read it). */
  async function ensure(company_id: number, contact_id: number): Promise<void> {
    const _id = stateKey(company_id, contact_id);
    await States.updateOne(
      { _id },
      {
        $setOnInsert: {
          company_id,
          contact_id,
          first_message_id: null,
          bots_off: false,
          window_start: new Date(0),
          window_count: 0,
          window_message_ids: [],
          updated_at: new Date(),
        },
      },
      { upsert: true },
    ).catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
  }

  return {
    init: () => States.init(),

    /**
     * The contact's state as this inbound message finds it; the first message automation sees
     * from a contact becomes its `first_message_id`, once and for good.
     */
    async noteInbound(
      company_id: number,
      contact_id: number,
      message_id: number,
    ): Promise<AutomationState> {
      const _id = stateKey(company_id, contact_id);
      let state = await find(_id);
      if (state?.first_message_id != null) return state;
      if (!state) await ensure(company_id, contact_id);
      await States.updateOne(
        { _id, first_message_id: null },
        { $set: { first_message_id: message_id, updated_at: new Date() } },
      );
      state = await find(_id);
      if (!state) throw new Error(`automation state ${_id} vanished`);
      return state;
    },

    /** Takes one of the contact's automated answers of this minute for `message_id`. */
    async claimAnswer(
      company_id: number,
      contact_id: number,
      message_id: number,
      maxPerMinute: number,
      now = new Date(),
    ): Promise<AnswerClaim> {
      const _id = stateKey(company_id, contact_id);
      for (let attempt = 0; attempt < 10; attempt++) {
        const state = await find(_id);
        if (!state) throw new Error(`automation state ${_id} is missing`);
        if ((state.window_message_ids ?? []).includes(message_id)) return 'repeat';
        const expired = now.getTime() - new Date(state.window_start).getTime() >= WINDOW_MS;
        if (!expired && state.window_count >= maxPerMinute) return 'limited';
        const result = await States.updateOne(
          { _id, window_start: state.window_start, window_count: state.window_count },
          expired
            ? {
                $set: {
                  window_start: now,
                  window_count: 1,
                  window_message_ids: [message_id],
                  updated_at: now,
                },
              }
            : {
                $inc: { window_count: 1 },
                $push: { window_message_ids: message_id },
                $set: { updated_at: now },
              },
        );
        if (result.modifiedCount === 1) return 'claimed';
      }
      throw new Error(`automation state ${_id} kept changing; retried later`);
    },

    /** No automated answers for the contact (a flow's hand-over to a human), or back on. */
    async setBotsOff(company_id: number, contact_id: number, off: boolean): Promise<void> {
      await ensure(company_id, contact_id);
      await States.updateOne(
        { _id: stateKey(company_id, contact_id) },
        { $set: { bots_off: off, updated_at: new Date() } },
      );
    },

    /** A flow's hand-over to a human: the contact gets no automated answer until turned back on. */
    turnBotsOff(company_id: number, contact_id: number): Promise<void> {
      return this.setBotsOff(company_id, contact_id, true);
    },

    async botsOff(company_id: number, contact_id: number): Promise<boolean> {
      return (await find(stateKey(company_id, contact_id)))?.bots_off === true;
    },
  };
}

export type AutomationStateStore = ReturnType<typeof createAutomationStateStore>;
