import {
  CHAT_COMPLETIONS_PATH,
  ChatCompletionResponseSchema,
  type ChatCompletionRequest,
} from '@switchboard/contracts';
import {
  OutboundError,
  createOutboundClient,
  urlPolicyViolation,
  type Logger,
  type OutboundClient,
  type UrlPolicy,
} from '@switchboard/service-kit';

/** What one question to an organization's endpoint came to; failures carry why, for the log. */
export type ChatCompletionOutcome =
  | { kind: 'answer'; content: string }
  | {
      kind: 'failure';
      reason: 'blocked' | 'circuit_open' | 'timeout' | 'unreachable' | 'status' | 'unexpected';
      detail: string;
    };

export interface ChatCompletionCall {
  /** One breaker per key: the organization and its endpoint. */
  breakerKey: string;
  /** The configured base URL; the call goes to `<endpoint>/chat/completions`. */
  endpoint: string;
  apiKey: string | null;
  request: ChatCompletionRequest;
}

export interface ChatCompletionsClientOptions {
  logger: Logger;
  timeoutMs: number;
  urlPolicy: UrlPolicy;
  breaker: { errorThresholdPercentage: number; volumeThreshold: number; resetTimeoutMs: number };
  /** Breakers of endpoints unused this long are dropped (unless open). */
  idleEvictMs?: number;
}

/** Far more than any chat answer; bounds what a misbehaving endpoint can make us hold. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Calls organizations' OpenAI-compatible chat-completions endpoints: the URL policy checked
 * before every call (DNS may have changed since the settings were saved), a wall-clock timeout,
 * no redirects, no proxy from the environment, and an opossum breaker per organization endpoint
 * that 5xx, timeouts and connection errors trip and 4xx never does.
 */
export function createChatCompletionsClient(options: ChatCompletionsClientOptions) {
  const breakers = new Map<string, { client: OutboundClient; lastUsed: number }>();
  const idleEvictMs = options.idleEvictMs ?? 10 * 60_000;
  const sweeper = setInterval(() => {
    const cutoff = Date.now() - idleEvictMs;
    for (const [key, entry] of breakers) {
      if (entry.lastUsed < cutoff && !entry.client.isCircuitOpen()) {
        entry.client.shutdown();
        breakers.delete(key);
      }
    }
  }, 60_000);
  sweeper.unref();

  function breakerFor(key: string): OutboundClient {
    let entry = breakers.get(key);
    if (!entry) {
      entry = {
        client: createOutboundClient({
          name: `ai-bot-${key}`,
          logger: options.logger,
          timeoutMs: options.timeoutMs,
          countsAsFailure: (status) => status >= 500,
          breaker: options.breaker,
          // One metrics series for every organization's endpoint, not one per organization.
          metricsLabel: 'ai-bot-endpoint',
        }),
        lastUsed: Date.now(),
      };
      breakers.set(key, entry);
    }
    entry.lastUsed = Date.now();
    return entry.client;
  }

  async function complete(call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    const violation = await urlPolicyViolation(call.endpoint, options.urlPolicy);
    if (violation) return { kind: 'failure', reason: 'blocked', detail: `endpoint ${violation}` };
    const client = breakerFor(call.breakerKey);
    let response;
    try {
      response = await client.request({
        method: 'POST',
        url: `${call.endpoint}${CHAT_COMPLETIONS_PATH}`,
        data: call.request,
        headers: {
          'content-type': 'application/json',
          ...(call.apiKey ? { authorization: `Bearer ${call.apiKey}` } : {}),
        },
        // axios' own timeout is per socket inactivity; this bounds the whole call.
        signal: AbortSignal.timeout(options.timeoutMs),
        maxContentLength: MAX_RESPONSE_BYTES,
        proxy: false,
      });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      const canceled = (error.cause as { code?: string } | undefined)?.code === 'ERR_CANCELED';
      return {
        kind: 'failure',
        reason: canceled ? 'timeout' : error.kind,
        detail: canceled ? 'the endpoint did not answer in time' : error.message,
      };
    }
    if (response.status < 200 || response.status >= 300) {
      return {
        kind: 'failure',
        reason: 'status',
        detail: `the endpoint answered ${response.status}`,
      };
    }
    const parsed = ChatCompletionResponseSchema.safeParse(response.data);
    const content = parsed.success ? parsed.data.choices[0]!.message.content : null;
    if (content === null || content.trim() === '') {
      return { kind: 'failure', reason: 'unexpected', detail: 'the answer had no message content' };
    }
    return { kind: 'answer', content };
  }

  return {
    complete,
    /** Whether calls for this key are paused by an open breaker (no call would be made). */
    isCircuitOpen: (breakerKey: string) =>
      breakers.get(breakerKey)?.client.isCircuitOpen() ?? false,
    shutdown(): void {
      clearInterval(sweeper);
      for (const entry of breakers.values()) entry.client.shutdown();
      breakers.clear();
    },
  };
}

export type ChatCompletionsClient = ReturnType<typeof createChatCompletionsClient>;
