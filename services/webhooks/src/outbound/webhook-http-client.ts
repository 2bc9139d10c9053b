import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import axios, { type AxiosRequestConfig, type AxiosResponse } from 'axios';
import { WEBHOOK_RESPONSE_BODY_LIMIT_BYTES } from '@switchboard/contracts';
import {
  ADDRESS_BLOCKED,
  OutboundError,
  createKeyedOutboundClients,
  createOutboundClient,
  hostOf,
  isPublicAddress,
  publicAddressLookup,
  withheldTraceContext,
  type Logger,
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
  timeoutMs: number;
  breaker: { errorThresholdPercentage: number; volumeThreshold: number; resetTimeoutMs: number };
  /** Breakers of endpoints unused this long are dropped (unless open). */
  idleEvictMs?: number;
}

/** Reads at most `limit` bytes of a response, then lets the rest go (the socket with it). */
async function readCapped(
  stream: Readable,
  limit: number,
): Promise<{ text: string; error?: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      const room = limit - size;
      chunks.push(buffer.subarray(0, room));
      size += Math.min(buffer.length, room);
      if (buffer.length >= room) break; // leaving the loop destroys the stream
    }
  } catch (error) {
    return { text: Buffer.concat(chunks).toString('utf8'), error: (error as Error).message };
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
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
 * Outbound webhook requests: keep-alive agents shared by every endpoint, a hard wall-clock
 * timeout (an AbortSignal that also cuts a trickling body), no redirects, no proxy from the
 * environment, at most 64 KiB of the answer read, and an opossum breaker per endpoint.
 */
export function createWebhookHttpClient(options: WebhookHttpClientOptions) {
  const lookup = options.allowPrivateUrls ? undefined : publicAddressLookup('webhooks');
  const agentOptions = { keepAlive: true, scheduling: 'lifo' as const, timeout: 60_000, lookup };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  const unguarded = axios.create({ maxRedirects: 0, validateStatus: () => true });
  const breakers = createKeyedOutboundClients({
    idleEvictMs: options.idleEvictMs,
    create: (endpoint) =>
      createOutboundClient({
        name: `webhook-${endpoint}`,
        logger: options.logger,
        timeoutMs: options.timeoutMs,
        countsAsFailure: (status) => status >= 500,
        breaker: options.breaker,
        // One metrics series for every customer endpoint, not one per webhook.
        metricsLabel: 'webhook-endpoint',
      }),
  });

  /** An IP literal never goes through the lookup, so it is checked here. */
  function literalAddressProblem(url: string): string | undefined {
    if (options.allowPrivateUrls) return undefined;
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:') return 'only https:// URLs may receive webhooks';
    const host = hostOf(parsed);
    return isIP(host) !== 0 && !isPublicAddress(host)
      ? `${host} is an address that webhooks may not call`
      : undefined;
  }

  async function send(request: AttemptRequest): Promise<AttemptResult> {
    const problem = literalAddressProblem(request.url);
    if (problem) return { kind: 'failure', failure: 'blocked', message: problem, durationMs: 0 };

    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const controller = new AbortController();
    let stream: Readable | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
      stream?.destroy();
    }, request.timeoutMs);
    const config: AxiosRequestConfig = {
      method: 'POST',
      url: request.url,
      data: request.body,
      headers: request.headers,
      httpAgent,
      httpsAgent,
      proxy: false,
      maxRedirects: 0,
      responseType: 'stream',
      validateStatus: () => true,
      signal: controller.signal,
      timeout: request.timeoutMs,
    };
    try {
      // Traced as a client span of the delivery, but the customer gets no `traceparent` of ours.
      const response: AxiosResponse<Readable> = await withheldTraceContext(() =>
        request.bypassBreaker
          ? unguarded.request(config)
          : breakers.get(request.endpoint).request(config),
      );
      stream = response.data;
      if (timedOut) stream.destroy();
      const read = await readCapped(stream, WEBHOOK_RESPONSE_BODY_LIMIT_BYTES);
      const note = read.error
        ? timedOut
          ? `response body cut off: timed out after ${request.timeoutMs} ms`
          : `response body cut off: ${read.error}`
        : undefined;
      return {
        kind: 'response',
        status: response.status,
        body: read.text,
        durationMs: elapsed(),
        note,
      };
    } catch (error) {
      if (error instanceof OutboundError && error.kind === 'circuit_open') {
        return { kind: 'circuit_open' };
      }
      const cause = error instanceof OutboundError ? error.cause : error;
      const code = errorCode(cause);
      const durationMs = elapsed();
      if (timedOut || code === 'ECONNABORTED' || code === 'ETIMEDOUT') {
        const message = `timed out after ${request.timeoutMs} ms`;
        return { kind: 'failure', failure: 'timeout', message, durationMs };
      }
      if (code === ADDRESS_BLOCKED) {
        return { kind: 'failure', failure: 'blocked', message: errorText(cause), durationMs };
      }
      const message = code ? `${code}: ${errorText(cause)}` : errorText(cause);
      return { kind: 'failure', failure: 'connection', message, durationMs };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    send,
    isCircuitOpen: breakers.isCircuitOpen,
    /** A deleted webhook's breaker goes with it. */
    forget: breakers.forget,
    shutdown(): void {
      breakers.shutdown();
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

export type WebhookHttpClient = ReturnType<typeof createWebhookHttpClient>;
