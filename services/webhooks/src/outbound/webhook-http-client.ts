import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { WEBHOOK_RESPONSE_BODY_LIMIT_BYTES } from '@switchboard/contracts';
import {
  ADDRESS_BLOCKED,
  CountedAnswer,
  OutboundError,
  createKeyedOutboundClients,
  createRemoteGuard,
  hostOf,
  isPublicAddress,
  publicAddressLookup,
  withheldTraceContext,
  type Logger,
  type RemoteGuard,
} from '@switchboard/service-kit';

export type FailureKind = 'timeout' | 'connection' | 'blocked';

/** What one attempt came to; the caller decides what it means for the delivery. */
export type AttemptResult =
  | { kind: 'response'; status: number; body: string; durationMs: number; note?: string }
  | { kind: 'failure'; failure: FailureKind; message: string; durationMs: number }
  | { kind: 'circuit_open' };

export interface AttemptRequest {
  /** The breaker's key: one breaker per webhook. */
  endpoint: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  /** A test sent by the customer skips the breaker: they want to know whether it works now. */
  bypassBreaker?: boolean;
}

export interface WebhookHttpClientOptions {
  logger: Logger;
  allowPrivateUrls: boolean;
  breaker: { errorThresholdPercentage: number; volumeThreshold: number; resetTimeoutMs: number };
  /** Breakers (and the connections) of endpoints unused this long are dropped (unless open). */
  idleEvictMs?: number;
}

/** The receiver's answer: its status and at most the first 64 KiB of its body. */
interface Answer {
  status: number;
  body: string;
  note?: string;
}

/** The attempt's own deadline passed: connecting, waiting or reading, whichever it was at. */
class AttemptTimeout extends Error {
  /** What the breaker's metrics count as a timeout. */
  readonly code = 'ETIMEDOUT';
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
  }
}

function errorCode(error: unknown): string | undefined {
  const seen = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = seen?.code ?? seen?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

function errorText(error: unknown): string {
  const seen = error as { message?: string; errors?: Array<{ message?: string }> } | undefined;
  // Node's happy eyeballs reports refused connections as an AggregateError with no message.
  return seen?.message || seen?.errors?.map((inner) => inner.message).join('; ') || 'failed';
}

/**
 * Reads at most `limit` bytes of an answer; past that the response (and its socket) is let go.
 * An answer read to its end leaves the socket to the agent for the next request.
 */
function readAnswer(
  response: IncomingMessage,
  limit: number,
  settle: (answer: Answer) => void,
): void {
  const status = response.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const finish = (note?: string) => {
    if (done) return;
    done = true;
    const body = Buffer.concat(chunks).toString('utf8');
    settle(note ? { status, body, note } : { status, body });
  };
  response.on('data', (chunk: Buffer) => {
    if (done) return;
    const room = limit - size;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    size += Math.min(chunk.length, room);
    if (chunk.length >= room) {
      finish();
      response.destroy();
    }
  });
  response.on('end', () => finish());
  response.on('error', (error) => finish(`response body cut off: ${errorText(error)}`));
  response.on('close', () => finish(response.complete ? undefined : 'response body cut off'));
}

/**
 * One POST on `agent`, settled once the answer is read (or cut off) or the request failed. One
 * timer is the hard wall-clock limit of the whole attempt: it also cuts a trickling body, which
 * then ends the attempt as an answer with a note.
 */
function post(agent: http.Agent, target: Target, request: AttemptRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    let answered = false;
    const outgoing = target.transport.request({
      ...target.options,
      agent,
      headers: { ...request.headers, 'Content-Length': String(request.body.length) },
    });
    const timer = setTimeout(() => {
      timedOut = true;
      outgoing.destroy(new AttemptTimeout(request.timeoutMs));
    }, request.timeoutMs);
    outgoing.on('response', (response) => {
      answered = true;
      readAnswer(response, WEBHOOK_RESPONSE_BODY_LIMIT_BYTES, (answer) => {
        clearTimeout(timer);
        resolve(
          timedOut && answer.note
            ? { ...answer, note: `response body cut off: timed out after ${request.timeoutMs} ms` }
            : answer,
        );
      });
    });
    outgoing.on('error', (error) => {
      if (answered) return; // the answer's reader settles, with a note
      clearTimeout(timer);
      reject(timedOut ? new AttemptTimeout(request.timeoutMs) : error);
    });
    outgoing.end(request.body);
  });
}

/** A webhook URL parsed once: what Node's request needs of it, and why it may not be called. */
interface Target {
  protocol: string;
  transport: typeof http | typeof https;
  options: http.RequestOptions;
  problem: string | undefined;
}

interface Endpoint {
  guard: RemoteGuard;
  agents: { 'http:'?: http.Agent; 'https:'?: https.Agent };
  isCircuitOpen(): boolean;
  shutdown(): void;
}

/**
 * Outbound webhook requests on node:http with keep-alive agents per endpoint (their connections
 * go with the endpoint's breaker when it is idle or deleted), a hard wall-clock timeout, no
 * redirects, no proxy from the environment, at most 64 KiB of the answer read, and a breaker per
 * endpoint. Without ALLOW_PRIVATE_URLS every connection is made to an address checked at connect
 * time (the agents' lookup), and an IP literal is checked here.
 */
export function createWebhookHttpClient(options: WebhookHttpClientOptions) {
  const lookup = options.allowPrivateUrls ? undefined : publicAddressLookup('webhooks');
  // Idle keep-alive sockets close after a minute; the gate, not the agent, bounds concurrency.
  const agentOptions = { keepAlive: true, scheduling: 'lifo' as const, timeout: 60_000, lookup };
  const endpoints = createKeyedOutboundClients<Endpoint>({
    idleEvictMs: options.idleEvictMs,
    create: (key) => {
      const guard = createRemoteGuard({
        name: `webhook-${key}`,
        logger: options.logger,
        breaker: options.breaker,
        // One metrics series for every customer endpoint, not one per webhook.
        metricsLabel: 'webhook-endpoint',
      });
      const endpoint: Endpoint = {
        guard,
        agents: {},
        isCircuitOpen: () => guard.isCircuitOpen(),
        shutdown: () => {
          guard.shutdown();
          endpoint.agents['http:']?.destroy();
          endpoint.agents['https:']?.destroy();
        },
      };
      return endpoint;
    },
  });
  const agentFor = (endpoint: Endpoint, protocol: string): http.Agent =>
    protocol === 'https:'
      ? (endpoint.agents['https:'] ??= new https.Agent(agentOptions))
      : (endpoint.agents['http:'] ??= new http.Agent(agentOptions));

  /** Why the URL may not be called now, or undefined; an IP literal never goes through the lookup. */
  function urlProblem(url: URL): string | undefined {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return `${url.protocol} URLs cannot receive webhooks`;
    }
    if (options.allowPrivateUrls) return undefined;
    if (url.protocol !== 'https:') return 'only https:// URLs may receive webhooks';
    const host = hostOf(url);
    return isIP(host) !== 0 && !isPublicAddress(host)
      ? `${host} is an address that webhooks may not call`
      : undefined;
  }

  // Every attempt to a webhook calls the same URL: it is parsed and checked once, not per request.
  const targets = new Map<string, Target>();
  function targetOf(text: string): Target {
    let target = targets.get(text);
    if (!target) {
      const url = new URL(text);
      target = {
        protocol: url.protocol,
        transport: url.protocol === 'https:' ? https : http,
        options: { ...urlToHttpOptions(url), method: 'POST' },
        problem: urlProblem(url),
      };
      if (targets.size >= 10_000) targets.clear();
      targets.set(text, target);
    }
    return target;
  }

  async function send(request: AttemptRequest): Promise<AttemptResult> {
    const target = targetOf(request.url);
    const problem = target.problem;
    if (problem) return { kind: 'failure', failure: 'blocked', message: problem, durationMs: 0 };

    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const endpoint = endpoints.get(request.endpoint);
    const agent = agentFor(endpoint, target.protocol);
    try {
      // Traced as a client span of the delivery, but the customer gets no `traceparent` of ours.
      const answer = await withheldTraceContext(() =>
        request.bypassBreaker
          ? post(agent, target, request)
          : endpoint.guard.run(
              async () => {
                const received = await post(agent, target, request);
                // A 5xx counts against the breaker, and still reaches the log.
                if (received.status >= 500) throw new CountedAnswer(received.status, received);
                return received;
              },
              (received) => received.status,
            ),
      );
      return { kind: 'response', ...answer, durationMs: elapsed() };
    } catch (error) {
      if (error instanceof OutboundError && error.kind === 'circuit_open') {
        return { kind: 'circuit_open' };
      }
      const cause = error instanceof OutboundError ? error.cause : error;
      const durationMs = elapsed();
      if (cause instanceof AttemptTimeout) {
        return { kind: 'failure', failure: 'timeout', message: cause.message, durationMs };
      }
      const code = errorCode(cause);
      if (code === ADDRESS_BLOCKED) {
        return { kind: 'failure', failure: 'blocked', message: errorText(cause), durationMs };
      }
      const message = code ? `${code}: ${errorText(cause)}` : errorText(cause);
      return { kind: 'failure', failure: 'connection', message, durationMs };
    }
  }

  return {
    send,
    isCircuitOpen: endpoints.isCircuitOpen,
    /** A deleted webhook's breaker and connections go with it. */
    forget: endpoints.forget,
    shutdown: endpoints.shutdown,
  };
}

export type WebhookHttpClient = ReturnType<typeof createWebhookHttpClient>;
