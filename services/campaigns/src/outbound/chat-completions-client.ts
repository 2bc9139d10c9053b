import http from 'node:http';
import https from 'node:https';
import {
  CHAT_COMPLETIONS_PATH,
  ChatCompletionResponseSchema,
  type ChatCompletionRequest,
} from '@switchboard/contracts';
import {
  ADDRESS_BLOCKED,
  OutboundError,
  createKeyedOutboundClients,
  createOutboundClient,
  publicAddressLookup,
  urlPolicyViolation,
  type Logger,
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
  const breakers = createKeyedOutboundClients({
    idleEvictMs: options.idleEvictMs,
    create: (key) =>
      createOutboundClient({
        name: `ai-bot-${key}`,
        logger: options.logger,
        timeoutMs: options.timeoutMs,
        countsAsFailure: (status) => status >= 500,
        breaker: options.breaker,
        // One metrics series for every organization's endpoint, not one per organization.
        metricsLabel: 'ai-bot-endpoint',
        // An outside vendor: our trace context stays home.
        outsideRemote: true,
      }),
  });
  // The address connected to is checked again at connect time (no DNS rebinding after the check).
  const lookup = options.urlPolicy.allowPrivate ? undefined : publicAddressLookup('the AI bot');
  const agents = {
    httpAgent: new http.Agent({ keepAlive: true, lookup }),
    httpsAgent: new https.Agent({ keepAlive: true, lookup }),
  };

  async function complete(call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    const violation = await urlPolicyViolation(call.endpoint, options.urlPolicy);
    if (violation) return { kind: 'failure', reason: 'blocked', detail: `endpoint ${violation}` };
    const client = breakers.get(call.breakerKey);
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
        ...agents,
      });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      const cause = error.cause as { code?: string; message?: string } | undefined;
      if (cause?.code === 'ERR_CANCELED') {
        return {
          kind: 'failure',
          reason: 'timeout',
          detail: 'the endpoint did not answer in time',
        };
      }
      if (cause?.code === ADDRESS_BLOCKED) {
        return { kind: 'failure', reason: 'blocked', detail: cause.message ?? error.message };
      }
      return { kind: 'failure', reason: error.kind, detail: error.message };
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
    isCircuitOpen: breakers.isCircuitOpen,
    shutdown(): void {
      breakers.shutdown();
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    },
  };
}

export type ChatCompletionsClient = ReturnType<typeof createChatCompletionsClient>;
