import type { FlowStep, SendContentInput } from '@switchboard/contracts';
import type {
  FlowAction,
  SessionEndReason,
} from '../../../data-access/automation/flow-session-store';
import type { StoredFlow } from '../../../data-access/automation/flow-store';
import { fillContactPlaceholders } from '../../fill-message';
import { containsWords, normalizeForMatching } from '../match-text';
import { flowMessageContent, type ContactFields } from './flow-content';

/**
 * Where one inbound message takes a flow, worked out without touching anything (the session is
 * written, and the actions performed, by run-flow-turn.ts):
 * - `moved`: the actions to perform, the one message to answer (or none), and the message step
 *   now waiting for a reply — or `null` when the flow ended;
 * - `unmatched`: the reply fits no branch of the waiting step;
 * - `broken`: a step cannot run (a missing step, a message the contact's fields cannot fill).
 */
export type StepPlan =
  | {
      kind: 'moved';
      actions: FlowAction[];
      answer: SendContentInput | null;
      waiting_at: string | null;
      end_reason: Extract<SessionEndReason, 'completed' | 'handed_over'> | null;
    }
  | { kind: 'broken'; step_id: string; reason: string };
export type TurnPlan = StepPlan | { kind: 'unmatched' };

export interface Reply {
  /** The text, or the title of a chosen button or list row. */
  text: string;
  /** The chosen button's or row's id. */
  reply_id?: string | undefined;
}

type MessageStep = Extract<FlowStep, { type: 'message' }>;

const stepOf = (flow: StoredFlow, id: string) => flow.steps.find((step) => step.id === id);

/** The step a reply to `step` goes to: the first branch it takes, then `next`; or none. */
function chooseNext(step: MessageStep, reply: Reply): string | undefined {
  const text = normalizeForMatching(reply.text);
  const buttons = step.message.type === 'text' ? (step.message.buttons ?? []) : [];
  for (const branch of step.branches ?? []) {
    if (branch.any) return branch.next;
    if (branch.button !== undefined) {
      const title = buttons.find((button) => button.id === branch.button)?.title;
      const chosen =
        reply.reply_id === branch.button ||
        (title !== undefined && normalizeForMatching(title) === text) ||
        normalizeForMatching(branch.button) === text;
      if (chosen) return branch.next;
    }
    if (branch.keywords?.some((keyword) => containsWords(text, normalizeForMatching(keyword)))) {
      return branch.next;
    }
  }
  return step.next;
}

/** The local copy of the contact after a `set_field`, so later messages show the new value. */
function applyField(contact: ContactFields, field: string, value: string): ContactFields {
  if (field.startsWith('custom.')) {
    const key = field.slice('custom.'.length);
    const custom = { ...contact.custom };
    if (value === '') delete custom[key];
    else custom[key] = value;
    return { ...contact, custom };
  }
  if (field === 'email') return { ...contact, email: value === '' ? null : value };
  if (field === 'name') return { ...contact, name: value };
  return contact;
}

/** Runs steps from `from` up to the first message step (which answers) or the end of the flow. */
function runFrom(flow: StoredFlow, from: string, start: ContactFields, reply: Reply): StepPlan {
  let contact = start;
  const actions: FlowAction[] = [];
  let id: string | undefined = from;
  const broken = (step_id: string, reason: string): StepPlan => ({
    kind: 'broken',
    step_id,
    reason,
  });
  const ended = (
    answer: SendContentInput | null,
    end_reason: 'completed' | 'handed_over',
  ): StepPlan => ({ kind: 'moved', actions, answer, waiting_at: null, end_reason });
  // A graph checked at save has no loop without a message step; a stored one may predate that.
  for (let hops = 0; hops <= flow.steps.length; hops++) {
    if (id === undefined) return ended(null, 'completed');
    const step = stepOf(flow, id);
    if (!step) return broken(id, `step ${id} does not exist in flow ${flow.id}`);

    if (step.type === 'set_field') {
      const value = fillContactPlaceholders(step.value, contact, reply.text);
      if ('missing' in value) return broken(step.id, `no value for ${value.missing.join(', ')}`);
      const text = value.text.trim();
      actions.push({
        type: 'update_contact',
        step_id: step.id,
        changes: fieldChange(step.field, text),
      });
      contact = applyField(contact, step.field, text);
      id = step.next;
      continue;
    }
    if (step.type === 'add_to_group') {
      actions.push({ type: 'update_contact', step_id: step.id, changes: { groups: [step.group] } });
      id = step.next;
      continue;
    }

    let answer: SendContentInput | null = null;
    if (step.message) {
      const filled = flowMessageContent(step.message, step.variables, contact, reply.text);
      if ('missing' in filled) {
        return broken(step.id, `its message cannot be filled: no ${filled.missing.join(', ')}`);
      }
      answer = filled.content;
    }
    if (step.type === 'hand_over') {
      actions.push({ type: 'turn_bots_off', step_id: step.id });
      return ended(answer, 'handed_over');
    }
    if (step.type === 'end') return ended(answer, 'completed');
    const waits = (step.branches?.length ?? 0) > 0 || step.next !== undefined;
    if (!waits) return ended(answer, 'completed');
    return { kind: 'moved', actions, answer, waiting_at: step.id, end_reason: null };
  }
  return broken(from, 'its steps loop without a message step');
}

function fieldChange(
  field: string,
  value: string,
): Extract<FlowAction, { type: 'update_contact' }>['changes'] {
  if (field.startsWith('custom.')) {
    return { custom: { [field.slice('custom.'.length)]: value === '' ? null : value } };
  }
  return { [field]: value };
}

/** A trigger matched: the flow runs from its start step. */
export function planStart(flow: StoredFlow, contact: ContactFields, reply: Reply): StepPlan {
  return runFrom(flow, flow.start_step, contact, reply);
}

/** The contact answered the message step `waiting_at`. */
export function planReply(
  flow: StoredFlow,
  waiting_at: string,
  contact: ContactFields,
  reply: Reply,
): TurnPlan {
  const step = stepOf(flow, waiting_at);
  if (step?.type !== 'message') {
    return {
      kind: 'broken',
      step_id: waiting_at,
      reason: `step ${waiting_at} is no longer a message step of flow ${flow.id}`,
    };
  }
  const next = chooseNext(step, reply);
  return next === undefined ? { kind: 'unmatched' } : runFrom(flow, next, contact, reply);
}

/** A reply no branch takes is answered with the waiting step's message again. */
export function planRepeat(
  flow: StoredFlow,
  waiting_at: string,
  contact: ContactFields,
  reply: Reply,
): StepPlan {
  const step = stepOf(flow, waiting_at) as MessageStep;
  const filled = flowMessageContent(step.message, step.variables, contact, reply.text);
  if ('missing' in filled) {
    return { kind: 'broken', step_id: waiting_at, reason: `no ${filled.missing.join(', ')}` };
  }
  return { kind: 'moved', actions: [], answer: filled.content, waiting_at, end_reason: null };
}
