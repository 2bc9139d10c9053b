import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ChatCompletionRequestSchema,
  type ChatCompletionRequest,
  type ChatCompletionResponse,
} from '@switchboard/contracts';

/** How the server answers the next calls (until told otherwise). */
export type ChatServerMode =
  | { kind: 'echo' }
  /** Answers `content` as the assistant's message, whatever was asked. */
  | { kind: 'fixed'; content: string }
  | { kind: 'status'; status: number }
  /** Never answers (until the server stops). */
  | { kind: 'hang' }
  /** 200 with a body that is not a chat completion. */
  | { kind: 'garbage' }
  /** 200 with exactly this JSON body. */
  | { kind: 'raw'; body: unknown };

export interface RecordedChatRequest {
  path: string;
  authorization: string | undefined;
  /** The body, when it matched the contracts schema. */
  body: ChatCompletionRequest | undefined;
  /** Why the body did not match the schema (the server answered 400). */
  invalid: string | undefined;
}

/**
 * A local OpenAI-compatible chat-completions server, speaking the wire format of
 * `POST /v1/chat/completions` as the contracts describe it: each request is checked against
 * `ChatCompletionRequestSchema` and recorded; `echo` answers `Echo: <the last user message>`.
 */
export async function startChatCompletionsServer() {
  let mode: ChatServerMode = { kind: 'echo' };
  const requests: RecordedChatRequest[] = [];
  const hanging = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        json = undefined;
      }
      const parsed = ChatCompletionRequestSchema.safeParse(json);
      requests.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body: parsed.success ? parsed.data : undefined,
        invalid: parsed.success ? undefined : parsed.error.message,
      });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        reply(404, { error: { message: 'Not found', type: 'invalid_request_error' } });
        return;
      }
      if (!parsed.success) {
        reply(400, { error: { message: parsed.error.message, type: 'invalid_request_error' } });
        return;
      }
      switch (mode.kind) {
        case 'hang':
          hanging.add(res);
          return;
        case 'status':
          reply(mode.status, { error: { message: 'failing on command', type: 'server_error' } });
          return;
        case 'garbage':
          reply(200, '<html>not a chat completion</html>');
          return;
        case 'raw':
          reply(200, JSON.stringify(mode.body));
          return;
        case 'fixed':
        case 'echo': {
          const lastUser = [...parsed.data.messages].reverse().find((m) => m.role === 'user');
          const content = mode.kind === 'fixed' ? mode.content : `Echo: ${lastUser?.content}`;
          // A real server's answer carries more than the bot reads; the schema's part must hold.
          const body: ChatCompletionResponse = {
            choices: [{ message: { role: 'assistant', content }, finish_reason: 'stop' }],
          };
          reply(200, {
            ...body,
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: parsed.data.model,
            choices: body.choices.map((choice, index) => ({ index, ...choice })),
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          });
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    /** The base URL an organization configures (`…/v1`). */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setMode(next: ChatServerMode) {
      mode = next;
    },
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type ChatCompletionsServer = Awaited<ReturnType<typeof startChatCompletionsServer>>;
