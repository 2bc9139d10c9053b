import { ChatCompletionRequestSchema, ChatCompletionResponseSchema } from '@switchboard/contracts';
import { createLogger } from '@switchboard/service-kit';
import {
  createChatCompletionsClient,
  type ChatCompletionsClient,
} from '../../src/outbound/chat-completions-client';
import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../support/chat-completions-server';

// The bot's side of the OpenAI chat-completions wire format, checked against the contracts'
// schemas: what it sends, and which answers it reads.

let server: ChatCompletionsServer;
let client: ChatCompletionsClient;

beforeAll(async () => {
  server = await startChatCompletionsServer();
  client = createChatCompletionsClient({
    logger: createLogger('campaigns', 'silent'),
    timeoutMs: 2_000,
    urlPolicy: { allowPrivate: true, resolve: async () => [] },
    breaker: { errorThresholdPercentage: 50, volumeThreshold: 100, resetTimeoutMs: 60_000 },
  });
});

afterAll(async () => {
  client.shutdown();
  await server.stop();
});

const question = {
  model: 'tiny-chat',
  messages: [
    { role: 'system' as const, content: 'Be brief.' },
    { role: 'user' as const, content: 'Do you ship to Rome?' },
  ],
};

const ask = () =>
  client.complete({
    breakerKey: 'contract',
    endpoint: server.baseUrl,
    apiKey: 'sk-contract-key',
    request: question,
  });

/** An answer as OpenAI's API gives it, with fields the bot does not read. */
const openAiAnswer = (content: string | null) => ({
  id: 'chatcmpl-abc123',
  object: 'chat.completion',
  created: 1_741_569_952,
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 19, completion_tokens: 10, total_tokens: 29 },
  service_tier: 'default',
});

describe('the chat-completions wire format', () => {
  test('when the bot asks, then it posts a body ChatCompletionRequestSchema accepts to <base>/chat/completions with the key as a bearer', async () => {
    server.setMode({ kind: 'echo' });
    expect(await ask()).toEqual({ kind: 'answer', content: 'Echo: Do you ship to Rome?' });
    const sent = server.requests.at(-1)!;
    expect(sent).toMatchObject({
      path: '/v1/chat/completions',
      authorization: 'Bearer sk-contract-key',
      invalid: undefined,
    });
    expect(ChatCompletionRequestSchema.parse(sent.body)).toEqual(question);
  });

  test('when the endpoint answers as OpenAI does, then the schema accepts it and the bot reads choices[0].message.content', async () => {
    const body = openAiAnswer('Yes, we ship to Rome.');
    expect(ChatCompletionResponseSchema.safeParse(body).success).toBe(true);
    server.setMode({ kind: 'raw', body });
    expect(await ask()).toEqual({ kind: 'answer', content: 'Yes, we ship to Rome.' });
  });

  test.each([
    ['no choices', { ...openAiAnswer('x'), choices: [] }],
    ['a null content (a tool call)', openAiAnswer(null)],
    ['no message', { choices: [{ index: 0, finish_reason: 'stop' }] }],
    ['an error object', { error: { message: 'overloaded', type: 'server_error' } }],
  ])('when the answer has %s, then the bot reads no answer from it', async (_what, body) => {
    server.setMode({ kind: 'raw', body });
    expect(await ask()).toMatchObject({ kind: 'failure', reason: 'unexpected' });
  });
});
