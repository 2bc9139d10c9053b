import type { InternalUpdateContactRequestInput } from '@switchboard/contracts';
import { AppError, type Logger } from '@switchboard/service-kit';
import type {
  FlowAction,
  FlowSessionStore,
  StoredFlowSession,
} from '../../../data-access/automation/flow-session-store';
import type { FlowStore, StoredFlow } from '../../../data-access/automation/flow-store';
import { normalizeForMatching } from '../match-text';
import type { AutomatedAnswer, InboundTurn, Responder } from '../responder';
import { planRepeat, planReply, planStart, type Reply, type StepPlan } from './plan-flow-turn';
import { sessionAfter, sessionEnded } from './session-moves';

export interface FlowResponderDeps {
  flows: FlowStore;
  sessions: FlowSessionStore;
  /** Contacts' internal update (`POST /internal/contacts/update`); a 4xx is an AppError. */
  updateContact(
    company_id: number,
    contact_id: number,
    changes: Omit<InternalUpdateContactRequestInput, 'company_id' | 'id'>,
  ): Promise<unknown>;
  /** Hands the contact to a person: automated answers stop for them (owned by the pipeline). */
  turnBotsOff(company_id: number, contact_id: number): Promise<void>;
  logger: Logger;
  /** A session no message has moved for this long is over (`FLOW_SESSION_TIMEOUT_MS`). */
  sessionTimeoutMs: number;
  now?: () => Date;
}

/** Writes lost to a concurrent move before giving up (the message is then retried whole). */
const ATTEMPTS = 5;

interface Decision {
  flow: StoredFlow;
  plan: StepPlan;
  /** The session goes on (rather than a trigger starting the flow anew). */
  continues: boolean;
}

/** A 4xx refusal will be refused again: the step is broken. Anything else may pass on a retry. */
const isPermanent = (error: unknown) =>
  error instanceof AppError && error.httpStatus >= 400 && error.httpStatus < 500;

/**
 * The first step of the answer order: the contact's flow session, or a flow
 * whose trigger the message is. At most one message per inbound turn; `null` when no flow speaks
 * (none active or triggered, the flow ended without a message, or a step broke — the session then
 * ends with a log line and the next responder is asked).
 *
 * A redelivered message (same `message_id`) moves nothing again and gets the answer its first
 * delivery got, so a send keyed by the inbound message stays one send. A transient failure
 * (contacts unavailable) throws: the move is stored with its actions pending, and the retry of
 * the message performs them and answers.
 */
export function createFlowResponder(deps: FlowResponderDeps): Responder {
  const clock = deps.now ?? (() => new Date());

  async function triggeredFlow(company_id: number, reply: Reply): Promise<StoredFlow | null> {
    const keys = [reply.text, reply.reply_id ?? '']
      .map(normalizeForMatching)
      .filter((key) => key !== '');
    if (keys.length === 0) return null;
    const [flow] = await deps.flows.activeWithTriggers(company_id, [...new Set(keys)]);
    return flow ?? null;
  }

  async function decide(
    session: StoredFlowSession | null,
    turn: InboundTurn,
    reply: Reply,
    now: Date,
  ): Promise<Decision | null> {
    const company_id = turn.organization.company_id;
    if (session?.status === 'active' && session.step_id && session.expires_at > now) {
      const flow = await deps.flows.find(company_id, session.flow_id);
      if (flow?.active) {
        const plan = planReply(flow, session.step_id, turn.contact, reply);
        if (plan.kind !== 'unmatched') return { flow, plan, continues: true };
        // A reply no branch takes may be another flow's trigger: that flow starts instead.
        const other = await triggeredFlow(company_id, reply);
        if (other)
          return { flow: other, plan: planStart(other, turn.contact, reply), continues: false };
        return {
          flow,
          plan: planRepeat(flow, session.step_id, turn.contact, reply),
          continues: true,
        };
      }
    }
    const flow = await triggeredFlow(company_id, reply);
    return flow ? { flow, plan: planStart(flow, turn.contact, reply), continues: false } : null;
  }

  function logBroken(
    session: Pick<StoredFlowSession, 'company_id' | 'contact_id' | 'flow_id'>,
    step_id: string | null,
    reason: string,
  ) {
    deps.logger.warn(
      {
        company_id: session.company_id,
        contact_id: session.contact_id,
        flow_id: session.flow_id,
        step_id,
        reason,
      },
      'flow step broken: the session ends',
    );
  }

  async function perform(session: StoredFlowSession, action: FlowAction): Promise<void> {
    if (action.type === 'turn_bots_off') {
      await deps.turnBotsOff(session.company_id, session.contact_id);
    } else {
      await deps.updateContact(session.company_id, session.contact_id, action.changes);
    }
  }

  /** Performs the actions stored with the session's last move; a refused one ends it broken. */
  async function settle(session: StoredFlowSession): Promise<StoredFlowSession> {
    let performed = 0;
    try {
      for (const action of session.pending_actions) {
        await perform(session, action);
        performed++;
      }
    } catch (error) {
      if (!isPermanent(error)) throw error;
      const failed = session.pending_actions[performed];
      const reason = `contacts refused the change: ${(error as Error).message}`;
      logBroken(session, failed?.step_id ?? null, reason);
      const ended = await deps.sessions.move(
        session.company_id,
        session.contact_id,
        session.version,
        sessionEnded(session, 'broken', clock()),
      );
      return ended ?? { ...session, answer: null, pending_actions: [] };
    }
    await deps.sessions.clearActions(session);
    return { ...session, pending_actions: [] };
  }

  async function answerOf(session: StoredFlowSession): Promise<AutomatedAnswer | null> {
    const settled = session.pending_actions.length > 0 ? await settle(session) : session;
    return settled.answer ? { source: `flow:${settled.flow_id}`, content: settled.answer } : null;
  }

  return async function respondWithFlow(turn: InboundTurn): Promise<AutomatedAnswer | null> {
    const company_id = turn.organization.company_id;
    const contact_id = turn.contact.id;
    const { message_id } = turn.message;
    const reply: Reply = { text: turn.message.text, reply_id: turn.message.reply_id };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const session = await deps.sessions.find(company_id, contact_id);
      if (session?.last_message_id === message_id) return answerOf(session);
      const earlier = (session?.earlier ?? []).find((handled) => handled.message_id === message_id);
      if (earlier) {
        // A late redelivery (the contact wrote again meanwhile): its move is long made.
        return earlier.answer
          ? { source: `flow:${earlier.flow_id}`, content: earlier.answer }
          : null;
      }
      if (session && session.pending_actions.length > 0) {
        // The previous message's move was stored but its actions not all performed (a crash).
        await settle(session);
        continue;
      }
      const now = clock();
      const decision = await decide(session, turn, reply, now);
      if (!decision) {
        if (session?.status === 'active') {
          // Timed out, or its flow was deleted or deactivated: it ends, and nothing answers.
          const reason = session.expires_at <= now ? 'expired' : 'flow_gone';
          await deps.sessions.move(
            company_id,
            contact_id,
            session.version,
            sessionEnded(session, reason, now, message_id),
          );
        }
        return null;
      }
      const moved = await deps.sessions.move(
        company_id,
        contact_id,
        session?.version ?? 0,
        sessionAfter(
          session,
          decision.flow,
          decision.plan,
          decision.continues,
          message_id,
          now,
          deps.sessionTimeoutMs,
        ),
      );
      if (!moved) continue;
      if (decision.plan.kind === 'broken') {
        logBroken(moved, decision.plan.step_id, decision.plan.reason);
        return null;
      }
      return answerOf(moved);
    }
    // Not a refusal: the pipeline retries the message later, when the session has settled.
    throw new Error(`the flow session of contact ${contact_id} kept changing`);
  };
}
