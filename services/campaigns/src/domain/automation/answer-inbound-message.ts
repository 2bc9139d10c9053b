import {
  MessagingSendCommandSchema,
  type BrokerEvent,
  type MessagingSendCommandInput,
  type OrgContext,
} from '@switchboard/contracts';
import { AppError, type Logger } from '@switchboard/service-kit';
import type { AutomationStateStore } from '../../data-access/automation/automation-state-store';
import type { ReplyStore } from '../../data-access/automation/reply-store';
import type { OrganizationDirectory } from '../../outbound/organization-directory';
import type { ServiceClients } from '../../outbound/service-clients';
import { replyIdOfSource } from './reply-responders';
import type { AutomatedAnswer, InboundTurn, Responder } from './responder';

export interface AutomationDeps {
  replies: ReplyStore;
  states: AutomationStateStore;
  organizations: OrganizationDirectory;
  clients: Pick<ServiceClients, 'contactById' | 'holdMessage'>;
  /** The answer order, first to last (see `answerOrder`). */
  responders: readonly Responder[];
  /** Opt-out and opt-in words: asked first, and answered even when bots are off. */
  optOut?: Responder;
  publishCommand(command: unknown, messageId: string): Promise<void>;
  logger: Logger;
  maxAnswersPerMinute: number;
}

/** What became of one inbound message, for the log and `switchboard_automated_answers_total`. */
export type AnswerOutcome =
  | 'answered'
  | 'no_answer'
  | 'echo'
  | 'bots_off'
  | 'agent_replying'
  | 'rate_limited'
  | 'quota_exhausted'
  | 'unsendable'
  | 'ignored';

/** A responder with nothing to say: the default for the steps other parts provide. */
export const nobody: Responder = async () => null;

/**
 * The answer order: the contact's flow session, an exact reply, a contains
 * reply, a bot campaign's keywords, the welcome reply, the AI bot. Flows and the AI bot are
 * provided from outside (they answer nothing until wired in).
 */
export function answerOrder(steps: {
  flow?: Responder;
  exactReply: Responder;
  containsReply: Responder;
  botCampaignKeywords: Responder;
  welcomeReply: Responder;
  aiBot?: Responder;
}): Responder[] {
  return [
    steps.flow ?? nobody,
    steps.exactReply,
    steps.containsReply,
    steps.botCampaignKeywords,
    steps.welcomeReply,
    steps.aiBot ?? nobody,
  ];
}

/** The first answer in order; later steps are not asked once one has answered. */
export async function firstAnswer(
  responders: readonly Responder[],
  turn: InboundTurn,
): Promise<AutomatedAnswer | null> {
  for (const responder of responders) {
    const answer = await responder(turn);
    if (answer) return answer;
  }
  return null;
}

/** Messaging sends once per key: a redelivered `message_received` never answers twice. */
export const answerKey = (message_id: number) => `automation:${message_id}`;

/**
 * `message_received` → at most one automated answer. Nothing is
 * answered for an echo of the business's own number, for a contact whose bots are off, for a
 * contact an agent answered a moment ago (messaging marks it `automation_paused`), beyond
 * the per-contact answers per minute, or when the month's message quota is used up (logged).
 * The answer goes to messaging as `messaging.send` commands with the quota place already held.
 */
export async function answerInboundMessage(
  deps: AutomationDeps,
  event: BrokerEvent,
): Promise<AnswerOutcome> {
  if (event.event !== 'message_received') return 'ignored';
  const { data } = event;
  const log = deps.logger.child({
    company_id: data.company_id,
    contact_id: data.contact_id,
    message_id: data.message_id,
  });
  if (event.echo) {
    log.info('automated answer skipped: the message came from the business number');
    return 'echo';
  }
  // Looked up together: one wait instead of three on the path to the answer.
  const [state, organization, contact] = await Promise.all([
    deps.states.noteInbound(data.company_id, data.contact_id, data.message_id),
    deps.organizations.find(data.company_id),
    deps.clients.contactById(data.company_id, data.contact_id),
  ]);
  if (!organization || !contact) {
    log.warn(
      { organization: !!organization },
      'automated answer skipped: contact or organization gone',
    );
    return 'ignored';
  }
  const turn: InboundTurn = {
    organization,
    contact,
    message: {
      message_id: data.message_id,
      message_wamid: data.message_wamid,
      type: data.message_type,
      text: data.message,
      ...(event.reply_id ? { reply_id: event.reply_id } : {}),
    },
    first_message: state.first_message_id === data.message_id,
    received_at: new Date(event.timestamp),
  };
  const optOut = deps.optOut ? await deps.optOut(turn) : null;
  if (!optOut && state.bots_off) {
    log.debug('automated answer skipped: bots are off for the contact');
    return 'bots_off';
  }
  // An opt-out is still honoured while an agent answers the contact; nothing else is sent.
  if (!optOut && event.automation_paused) {
    log.info('automated answer skipped: an agent is answering the contact');
    return 'agent_replying';
  }
  const answer = optOut ?? (await firstAnswer(deps.responders, turn));
  if (!answer) return 'no_answer';

  const claim = await deps.states.claimAnswer(
    data.company_id,
    data.contact_id,
    data.message_id,
    deps.maxAnswersPerMinute,
  );
  if (claim === 'limited') {
    log.warn(
      { source: answer.source, limit: deps.maxAnswersPerMinute },
      'automated answer skipped: the contact reached the automated answers per minute',
    );
    return 'rate_limited';
  }
  return sendAnswer(deps, organization, turn, answer, claim === 'claimed', log);
}

/**
 * One message of an answer. A first attempt (`fresh`) holds its quota place itself, named by the
 * answer's key, so a full quota is a logged skip and never a parked command; it counts the reply's
 * use once. The command names the hold and messaging takes the place over when it stores the
 * message; a redelivered turn names it again (messaging takes it over if a crash left it, or
 * reserves). A hold no command takes over is given back by messaging's recovery job.
 */
async function sendAnswer(
  deps: AutomationDeps,
  organization: OrgContext,
  turn: InboundTurn,
  answer: AutomatedAnswer,
  fresh: boolean,
  log: Logger,
): Promise<AnswerOutcome> {
  const key = answerKey(turn.message.message_id);
  const parsed = MessagingSendCommandSchema.safeParse({
    company_id: organization.company_id,
    plan: organization.plan,
    plan_started_at: organization.plan_started_at.toISOString(),
    contact_id: turn.contact.id,
    phone: turn.contact.phone,
    contact_name: turn.contact.name,
    content: answer.content,
    idempotency_key: key,
    quota_hold: key,
    // A chained reply rides on the same command, so messaging sends it after this one.
    ...(answer.next ? { then: { content: answer.next.content } } : {}),
  } satisfies MessagingSendCommandInput);
  if (!parsed.success) {
    // A responder's content messaging would refuse: no retry can fix it.
    log.error(
      { source: answer.source, issues: parsed.error.issues },
      'automated answer cannot be sent as it is',
    );
    return 'unsendable';
  }
  const command = parsed.data;
  if (fresh) {
    try {
      command.quota_month = await deps.clients.holdMessage(organization, key);
    } catch (error) {
      if (error instanceof AppError && error.code === 'quota_exceeded') {
        log.warn(
          { source: answer.source, plan: organization.plan },
          'automated answer not sent: the message quota is used up',
        );
        return 'quota_exhausted';
      }
      throw error;
    }
  }
  await deps.publishCommand(command, key);
  if (fresh) {
    for (const source of [answer.source, answer.next?.source]) {
      const replyId = source === undefined ? undefined : replyIdOfSource(source);
      if (replyId !== undefined) await deps.replies.countUse(replyId);
    }
  }
  log.info({ source: answer.source, key }, 'automated answer handed to messaging');
  return 'answered';
}
