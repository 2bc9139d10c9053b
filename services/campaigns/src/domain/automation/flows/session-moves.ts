import type {
  FlowSessionState,
  HandledMessage,
  SessionEndReason,
  StoredFlowSession,
} from '../../../data-access/automation/flow-session-store';
import type { StoredFlow } from '../../../data-access/automation/flow-store';
import type { StepPlan } from './plan-flow-turn';

/** How many earlier messages a session remembers (a retry comes back within seconds). */
const REMEMBERED = 20;

/** The session's handled messages once `message_id` becomes its last one. */
function rememberLast(previous: StoredFlowSession | null): HandledMessage[] {
  if (!previous || previous.last_message_id === null) return previous?.earlier ?? [];
  const last = {
    message_id: previous.last_message_id,
    flow_id: previous.flow_id,
    answer: previous.answer,
  };
  return [...previous.earlier, last].slice(-REMEMBERED);
}

/**
 * The session after `message_id` took `flow` to `plan`: waiting at a message step, or ended
 * (completed, handed over, broken). `continues`: the same session goes on, rather than a trigger
 * starting the flow anew.
 */
export function sessionAfter(
  previous: StoredFlowSession | null,
  flow: StoredFlow,
  plan: StepPlan,
  continues: boolean,
  message_id: number,
  now: Date,
  timeoutMs: number,
): FlowSessionState {
  const common = {
    flow_id: flow.id,
    last_message_id: message_id,
    earlier: rememberLast(previous),
    started_at: continues && previous ? previous.started_at : now,
    updated_at: now,
  };
  if (plan.kind === 'broken') {
    return {
      ...common,
      step_id: null,
      status: 'ended',
      end_reason: 'broken',
      answer: null,
      pending_actions: [],
      expires_at: now,
    };
  }
  return {
    ...common,
    step_id: plan.waiting_at,
    status: plan.waiting_at ? 'active' : 'ended',
    end_reason: plan.waiting_at ? null : plan.end_reason,
    answer: plan.answer,
    pending_actions: plan.actions,
    expires_at: new Date(now.getTime() + timeoutMs),
  };
}

/**
 * The session ended without an answer to its last message: an action of its last move was
 * refused (`broken`, the same message), or `message_id` found it timed out or its flow gone.
 */
export function sessionEnded(
  session: StoredFlowSession,
  reason: Extract<SessionEndReason, 'broken' | 'expired' | 'flow_gone'>,
  now: Date,
  message_id: number | null = null,
): FlowSessionState {
  const { _id, company_id: _company, contact_id: _contact, version: _version, ...state } = session;
  const anew = message_id !== null && message_id !== session.last_message_id;
  return {
    ...state,
    ...(anew ? { last_message_id: message_id, earlier: rememberLast(session) } : {}),
    step_id: null,
    status: 'ended',
    end_reason: reason,
    answer: null,
    pending_actions: [],
    updated_at: now,
  };
}
