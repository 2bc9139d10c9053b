import type { MessageView, OrgContext } from '@switchboard/contracts';
import type { Logger, SecretBox } from '@switchboard/service-kit';
import type { AiBotSettingsStore } from '../../../data-access/automation/ai-bot-settings-store';
import type { ChatCompletionsClient } from '../../../outbound/chat-completions-client';
import type { Responder } from '../responder';
import { answerText, buildChatRequest } from './build-chat-request';

export interface AiBotDeps {
  settings: AiBotSettingsStore;
  secrets: SecretBox;
  /** The contact's latest messages, newest first, with ids below `before_id` (messaging's `getMessages`). */
  recentMessages(
    organization: OrgContext,
    contact_id: number,
    limit: number,
    before_id: number,
  ): Promise<MessageView[]>;
  chat: ChatCompletionsClient;
  /** Messages of the conversation sent with each question, the one being answered included. */
  historyMessages: number;
  logger: Logger;
  /** The model asked for a person (the hand-over marker): the contact is handed over. */
  handOver?(company_id: number, contact_id: number): Promise<void>;
}

/**
 * What the model writes, anywhere in its answer, to hand the conversation to a person (the
 * organization's system prompt tells it when, e.g. "if the customer asks for a person or you
 * cannot help, add [handover]"). Plain text rather than a tool call: every OpenAI-compatible
 * endpoint returns text, not all of them support tools.
 */
export const HAND_OVER_MARKER = /\[\s*hand[\s_-]?over\s*\]/i;

/** The answer without the marker, and whether the marker was there. */
export function splitHandOver(text: string): { text: string; handOver: boolean } {
  if (!HAND_OVER_MARKER.test(text)) return { text: text.trim(), handOver: false };
  const every = new RegExp(HAND_OVER_MARKER.source, 'gi');
  return {
    text: text
      .replace(every, ' ')
      .replace(/[ \t]{2,}/g, ' ')
      .trim(),
    handOver: true,
  };
}

export const AI_BOT_SOURCE = 'ai_bot';

/**
 * The last step of the answer order: when the organization's bot is
 * enabled and the contact is switched on, the recent conversation goes to the organization's
 * chat-completions endpoint and its answer is the reply. Any failure is logged and answers
 * nothing: the contact gets no reply rather than an error message.
 */
export function createAiBotResponder(deps: AiBotDeps): Responder {
  return async (turn) => {
    // A message with no text (a sticker, a location) is nothing the model could answer.
    if (!turn.contact.ai_bot_enabled || !turn.message.text.trim()) return null;
    const { company_id } = turn.organization;
    const settings = await deps.settings.find(company_id);
    if (!settings?.enabled || !settings.endpoint || !settings.model) return null;

    const log = deps.logger.child({
      company_id,
      contact_id: turn.contact.id,
      message_id: turn.message.message_id,
    });
    let answer: string;
    try {
      const history = await deps.recentMessages(
        turn.organization,
        turn.contact.id,
        deps.historyMessages,
        turn.message.message_id + 1,
      );
      const outcome = await deps.chat.complete({
        breakerKey: `${company_id}:${settings.endpoint}`,
        endpoint: settings.endpoint,
        apiKey: settings.api_key_sealed ? deps.secrets.open(settings.api_key_sealed) : null,
        request: buildChatRequest({
          model: settings.model,
          systemPrompt: settings.system_prompt,
          history,
          current: { message_id: turn.message.message_id, text: turn.message.text },
        }),
      });
      if (outcome.kind === 'failure') {
        log.warn({ reason: outcome.reason, detail: outcome.detail }, 'AI bot gave no answer');
        return null;
      }
      answer = outcome.content;
    } catch (error) {
      log.warn({ err: error, reason: 'error' }, 'AI bot gave no answer');
      return null;
    }
    const { text, handOver } = splitHandOver(answer);
    if (handOver && deps.handOver) {
      // Outside the catch: a hand-over that could not be recorded fails the turn, which is retried.
      await deps.handOver(company_id, turn.contact.id);
      log.info('AI bot handed the conversation over to a person');
    }
    if (!text) return null;
    return { source: AI_BOT_SOURCE, content: { type: 'text', message: answerText(text) } };
  };
}
