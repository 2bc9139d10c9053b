import type {
  CampaignMessage,
  Contact,
  SendContentInput,
  VariableSource,
} from '@switchboard/contracts';
import type { ReplyStore, StoredReply } from '../../data-access/automation/reply-store';
import { contentFor, fillTextContent, fillVariables } from '../fill-message';
import { containsWords, isExactMatch, normalizeForMatching } from './match-text';
import type { AutomatedAnswer, InboundTurn, Responder } from './responder';

/** A bot campaign as automation sees it: keywords that pick it and the message it answers. */
export interface BotCampaign {
  id: number;
  keywords: string[] | null;
  message: CampaignMessage;
  variables: VariableSource[];
}

/**
 * What automation asks of the campaigns domain, its one way in: the organization's active bot
 * campaigns. The wiring hands it the campaign store's query.
 */
export interface BotCampaigns {
  active(company_id: number): Promise<BotCampaign[]>;
}

export interface ReplyResponderDeps {
  replies: ReplyStore;
  botCampaigns: BotCampaigns;
}

/** Messaging's stand-in for a message with no text of its own: `[image]`, `[location]`… */
const isPlaceholder = (text: string) => /^\[[^\]]*\]$/.test(text.trim());

/**
 * What the contact said, normalized: the text (a caption, a button's title) and a chosen
 * button's id. A stand-in such as `[image]` is not something the contact said.
 */
const saidIn = (turn: InboundTurn): string[] =>
  [isPlaceholder(turn.message.text) ? undefined : turn.message.text, turn.message.reply_id]
    .filter((text): text is string => typeof text === 'string')
    .map(normalizeForMatching)
    .filter((text) => text !== '');

/** The source of an answer that is an automated reply; the pipeline counts its uses by it. */
export const replySource = (id: number) => `reply:${id}`;
export const replyIdOfSource = (source: string): number | undefined => {
  const match = /^reply:(\d+)$/.exec(source);
  return match ? Number(match[1]) : undefined;
};

export function replyContent(reply: StoredReply, contact: Contact): SendContentInput {
  return fillTextContent(
    {
      type: 'text',
      message: reply.message,
      ...(reply.header ? { header: reply.header } : {}),
      ...(reply.footer ? { footer: reply.footer } : {}),
      ...(reply.buttons.length > 0 ? { buttons: reply.buttons } : {}),
      ...(reply.image ? { image: reply.image } : {}),
    },
    contact,
  );
}

/**
 * The reply-based steps of the answer order: exact, contains, bot campaign
 * keywords and welcome. The organization's active replies are read once per turn, whichever
 * steps ask. Among several matching replies of one kind the oldest (lowest id) answers. A reply's
 * `next_reply_id` (if that reply is still active) is sent right after it, one level deep.
 */
export function createReplyResponders(deps: ReplyResponderDeps) {
  const perTurn = new WeakMap<InboundTurn, Promise<StoredReply[]>>();
  const repliesOf = (turn: InboundTurn) => {
    let replies = perTurn.get(turn);
    if (!replies) {
      replies = deps.replies.active(turn.organization.company_id);
      perTurn.set(turn, replies);
    }
    return replies;
  };

  async function answerWith(
    reply: StoredReply,
    turn: InboundTurn,
    replies: StoredReply[],
  ): Promise<AutomatedAnswer> {
    const next =
      reply.next_reply_id !== null && reply.next_reply_id !== reply.id
        ? replies.find((candidate) => candidate.id === reply.next_reply_id)
        : undefined;
    return {
      source: replySource(reply.id),
      content: replyContent(reply, turn.contact),
      ...(next
        ? { next: { source: replySource(next.id), content: replyContent(next, turn.contact) } }
        : {}),
    };
  }

  const byKind =
    (kind: StoredReply['kind'], matches: (said: string, key: string) => boolean): Responder =>
    async (turn) => {
      const said = saidIn(turn);
      if (said.length === 0) return null;
      const replies = await repliesOf(turn);
      const reply = replies.find(
        (candidate) =>
          candidate.kind === kind &&
          candidate.match_keys.some((key) => said.some((text) => matches(text, key))),
      );
      return reply ? answerWith(reply, turn, replies) : null;
    };

  const welcomeReply: Responder = async (turn) => {
    if (!turn.first_message) return null;
    const replies = await repliesOf(turn);
    const reply = replies.find((candidate) => candidate.kind === 'welcome');
    return reply ? answerWith(reply, turn, replies) : null;
  };

  /** A bot campaign answers when one of its keywords is the message or appears in it as words. */
  const botCampaignKeywords: Responder = async (turn) => {
    const said = saidIn(turn);
    if (said.length === 0) return null;
    const campaigns = await deps.botCampaigns.active(turn.organization.company_id);
    for (const campaign of campaigns.sort((a, b) => a.id - b.id)) {
      const keys = (campaign.keywords ?? []).map(normalizeForMatching);
      if (!keys.some((key) => said.some((text) => containsWords(text, key)))) continue;
      const filled = fillVariables(campaign.variables, turn.contact);
      if ('missing' in filled) continue;
      return {
        source: `campaign:${campaign.id}`,
        content: contentFor(campaign.message, filled.values),
      };
    }
    return null;
  };

  return {
    exactReply: byKind('exact', isExactMatch),
    containsReply: byKind('contains', containsWords),
    botCampaignKeywords,
    welcomeReply,
  };
}
