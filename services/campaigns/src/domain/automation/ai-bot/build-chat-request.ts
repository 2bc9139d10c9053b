import {
  AI_BOT_ANSWER_MAX_CHARS,
  type ChatCompletionRequest,
  type ChatMessage,
  type MessageView,
} from '@switchboard/contracts';

/**
 * The question for the model: the system prompt, then the conversation oldest first (the
 * contact's messages as `user`, the business's as `assistant`), ending with the message being
 * answered exactly once. `history` is messaging's page, newest first, of messages up to and
 * including the current one; outbound messages that failed never reached the contact and are
 * left out, as are messages with no text.
 */
export function buildChatRequest(options: {
  model: string;
  systemPrompt: string;
  history: readonly MessageView[];
  current: { message_id: number; text: string };
}): ChatCompletionRequest {
  const conversation: ChatMessage[] = [...options.history]
    .filter((message) => message.id !== options.current.message_id)
    .filter((message) => message.id < options.current.message_id)
    .filter((message) => message.status !== 'failed' && message.message.trim() !== '')
    .sort((a, b) => a.id - b.id)
    .map((message) => ({
      role: message.direction === 'inbound' ? 'user' : 'assistant',
      content: message.message,
    }));
  const system: ChatMessage[] = options.systemPrompt.trim()
    ? [{ role: 'system', content: options.systemPrompt }]
    : [];
  return {
    model: options.model,
    messages: [...system, ...conversation, { role: 'user', content: options.current.text }],
  };
}

/**
 * The answer as it is sent: trimmed, and cut to WhatsApp's text limit (counted in UTF-16 units,
 * as messaging's schema counts it) without splitting a surrogate pair.
 */
export function answerText(content: string): string {
  const text = content.trim();
  if (text.length <= AI_BOT_ANSWER_MAX_CHARS) return text;
  const cut = text.slice(0, AI_BOT_ANSWER_MAX_CHARS);
  return (/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut).trimEnd();
}
