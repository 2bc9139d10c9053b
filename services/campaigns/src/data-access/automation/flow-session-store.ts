import { isDuplicateKeyError } from '@switchboard/service-kit';
import { Schema, type Connection, type Model } from 'mongoose';
import type { SendContentInput } from '@switchboard/contracts';

/** What a step asks of other parts once its move is stored (a flow's outbox of side effects). */
export type FlowAction =
  | {
      type: 'update_contact';
      step_id: string;
      changes: {
        name?: string;
        email?: string;
        language?: string;
        subscription?: string;
        custom?: Record<string, string | null>;
        groups?: (number | string)[];
      };
    }
  | { type: 'turn_bots_off'; step_id: string };

/** A message the session answered before its last one, kept so that a late redelivery of it
 * (a retry that comes back after the contact's next message) moves nothing. */
export interface HandledMessage {
  message_id: number;
  flow_id: number;
  answer: SendContentInput | null;
}

export type SessionEndReason = 'completed' | 'handed_over' | 'expired' | 'broken' | 'flow_gone';

/**
 * A contact's place in a flow: one document per contact, `_id` `<company>:<contact>` (the local
 * database's fast path). Every move is one write conditional on `version`, so two deliveries of
 * a message, or two messages at once, move it once each and never both from the same place.
 *
 * The write that moves the session also records the inbound message that moved it, the answer
 * to send and the actions still to perform: a redelivered message finds its own move and gets the
 * same answer, and actions a crash interrupted are performed by the next delivery.
 */
export interface StoredFlowSession {
  _id: string;
  company_id: number;
  contact_id: number;
  flow_id: number;
  /** The message step waiting for the contact's reply (while active). */
  step_id: string | null;
  status: 'active' | 'ended';
  end_reason: SessionEndReason | null;
  version: number;
  last_message_id: number | null;
  answer: SendContentInput | null;
  pending_actions: FlowAction[];
  /** The messages handled before `last_message_id`, most recent last (at most 20). */
  earlier: HandledMessage[];
  expires_at: Date;
  started_at: Date;
  updated_at: Date;
}

export type FlowSessionState = Omit<
  StoredFlowSession,
  '_id' | 'company_id' | 'contact_id' | 'version'
>;

const sessionSchema = new Schema<StoredFlowSession>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    contact_id: { type: Number, required: true },
    flow_id: { type: Number, required: true },
    step_id: { type: String, default: null },
    status: { type: String, required: true },
    end_reason: { type: String, default: null },
    version: { type: Number, required: true },
    last_message_id: { type: Number, default: null },
    answer: { type: Schema.Types.Mixed, default: null },
    pending_actions: { type: Schema.Types.Mixed, default: [] },
    earlier: { type: Schema.Types.Mixed, default: [] },
    expires_at: { type: Date, required: true },
    started_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'flow_sessions', versionKey: false, minimize: false },
);
sessionSchema.index({ company_id: 1, flow_id: 1 });

const sessionId = (company_id: number, contact_id: number) => `${company_id}:${contact_id}`;

export function createFlowSessionStore(db: Connection) {
  const Sessions =
    (db.models.FlowSession as Model<StoredFlowSession> | undefined) ??
    db.model<StoredFlowSession>('FlowSession', sessionSchema);

  return {
    init: () => Sessions.init(),

    find(company_id: number, contact_id: number): Promise<StoredFlowSession | null> {
      return Sessions.findById(sessionId(company_id, contact_id)).lean<StoredFlowSession>().exec();
    },

    /**
     * Writes the session's next state if it is still at `version` (0: no session stored yet).
     * Answers the stored session, or null when another write came first.
     */
    async move(
      company_id: number,
      contact_id: number,
      version: number,
      state: FlowSessionState,
    ): Promise<StoredFlowSession | null> {
      const _id = sessionId(company_id, contact_id);
      const next: StoredFlowSession = {
        _id,
        company_id,
        contact_id,
        version: version + 1,
        ...state,
      };
      if (version === 0) {
        try {
          await Sessions.create(next);
          return next;
        } catch (error) {
          if (isDuplicateKeyError(error)) return null;
          throw error;
        }
      }
      const { _id: _ignored, ...fields } = next;
      const result = await Sessions.updateOne({ _id, version }, { $set: fields });
      return result.modifiedCount === 1 ? next : null;
    },

    /** Forgets the actions of the move at `version`, once performed. */
    async clearActions(session: StoredFlowSession): Promise<void> {
      await Sessions.updateOne(
        { _id: session._id, version: session.version },
        { $set: { pending_actions: [] } },
      );
    },
  };
}

export type FlowSessionStore = ReturnType<typeof createFlowSessionStore>;
