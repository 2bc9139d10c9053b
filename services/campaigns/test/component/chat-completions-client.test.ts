import { createLogger } from '@switchboard/service-kit';
import { createChatCompletionsClient } from '../../src/outbound/chat-completions-client';
import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../support/chat-completions-server';

let chat: ChatCompletionsServer;

beforeAll(async () => {
  chat = await startChatCompletionsServer();
});

afterAll(async () => {
  await chat?.stop();
});

test('when an endpoint that passed the URL check resolves to a private address at connect time, then no connection is made and the call fails as blocked', async () => {
  const port = new URL(chat.baseUrl).port;
  const client = createChatCompletionsClient({
    logger: createLogger('campaigns', 'silent'),
    timeoutMs: 2_000,
    // What DNS answered when the URL was checked: a public address (then rebound to loopback).
    urlPolicy: { allowPrivate: false, resolve: async () => ['93.184.215.14'] },
    breaker: { errorThresholdPercentage: 50, volumeThreshold: 5, resetTimeoutMs: 30_000 },
  });
  try {
    const outcome = await client.complete({
      breakerKey: 'org-1',
      endpoint: `https://localhost:${port}/v1`,
      apiKey: null,
      request: { model: 'tiny-chat', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(outcome).toEqual({
      kind: 'failure',
      reason: 'blocked',
      detail: expect.stringMatching(/^localhost resolves to .*, which the AI bot may not call$/),
    });
    expect(chat.requests).toHaveLength(0);
  } finally {
    client.shutdown();
  }
});
