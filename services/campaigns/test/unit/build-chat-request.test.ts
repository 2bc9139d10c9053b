import {
  AI_BOT_ANSWER_MAX_CHARS,
  ChatCompletionRequestSchema,
  type MessageView,
} from '@switchboard/contracts';
import {
  answerText,
  buildChatRequest,
} from '../../src/domain/automation/ai-bot/build-chat-request';

function message(id: number, direction: 'inbound' | 'outbound', text: string, status = 'sent') {
  return {
    id,
    wamid: `wamid.${id}`,
    contact_id: 7,
    phone: '393480000001',
    direction,
    type: 'text',
    message: text,
    status: direction === 'inbound' ? 'received' : status,
    error: null,
    campaign_id: null,
    created_at: new Date(1_700_000_000_000 + id).toISOString(),
    status_times: { sent: null, delivered: null, read: null, failed: null },
  } as MessageView;
}

describe('the question sent to the model', () => {
  test('when messaging gives the page newest first, then the conversation goes oldest first, inbound as user and outbound as assistant, after the system prompt', () => {
    const request = buildChatRequest({
      model: 'tiny-chat',
      systemPrompt: 'Be brief.',
      history: [
        message(14, 'inbound', 'Rome?'),
        message(12, 'outbound', 'Hi, how can we help?'),
        message(10, 'inbound', 'Hello'),
      ],
      current: { message_id: 14, text: 'Rome?' },
    });
    expect(request).toEqual({
      model: 'tiny-chat',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi, how can we help?' },
        { role: 'user', content: 'Rome?' },
      ],
    });
    expect(ChatCompletionRequestSchema.parse(request)).toEqual(request);
  });

  test('when the message being answered is not in the page yet, then it is still sent, once, last', () => {
    const request = buildChatRequest({
      model: 'm',
      systemPrompt: '',
      history: [message(12, 'outbound', 'Welcome!'), message(10, 'inbound', 'Hello')],
      current: { message_id: 15, text: 'Anyone?' },
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Welcome!' },
      { role: 'user', content: 'Anyone?' },
    ]);
  });

  test('when the page holds later messages, failed sends or empty texts, then they are left out', () => {
    const request = buildChatRequest({
      model: 'm',
      systemPrompt: '   ',
      history: [
        message(20, 'inbound', 'a later question'),
        message(14, 'inbound', 'Rome?'),
        message(13, 'outbound', 'never delivered', 'failed'),
        message(12, 'outbound', '   '),
        message(10, 'inbound', 'Hello'),
      ],
      current: { message_id: 14, text: 'Rome?' },
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'user', content: 'Rome?' },
    ]);
  });
});

describe('the answer as it is sent', () => {
  test('when the answer has spaces around it, then they are trimmed', () => {
    expect(answerText('\n  We ship to Rome.  \n')).toBe('We ship to Rome.');
  });

  test('when the answer is longer than WhatsApp allows, then it is cut to the limit', () => {
    const cut = answerText('a'.repeat(AI_BOT_ANSWER_MAX_CHARS + 50));
    expect(cut).toHaveLength(AI_BOT_ANSWER_MAX_CHARS);
  });

  test('when the cut falls inside an emoji, then the emoji is dropped whole', () => {
    const cut = answerText(`${'a'.repeat(AI_BOT_ANSWER_MAX_CHARS - 1)}😀 and more`);
    expect(cut).toBe('a'.repeat(AI_BOT_ANSWER_MAX_CHARS - 1));
    expect(/[\uD800-\uDFFF]/.test(cut)).toBe(false);
  });
});
