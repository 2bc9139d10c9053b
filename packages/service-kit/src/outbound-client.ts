import http from 'node:http';
import https from 'node:https';
import axios, { type AxiosRequestConfig, type AxiosResponse } from 'axios';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { CountedAnswer, createRemoteGuard, type RemoteGuardOptions } from './remote-guard';
import { withheldTraceContext } from './trace-context';

export { OutboundError, type OutboundFailureKind } from './remote-guard';

export interface OutboundClientOptions {
  name: string;
  logger: Logger;
  baseURL?: string;
  timeoutMs: number;
  /**
   * Statuses that count as the remote failing (they trip the breaker but still reach the caller).
   * Default: none, only no answer (timeout, refused connection) counts. Another Switchboard
   * service that answers is up, and its 5xx may be about one tenant's request (messaging's 502
   * for one channel's provider error); counting it would pause every tenant's calls. Remotes
   * outside Switchboard (the provider, customer endpoints) pass `status >= 500`.
   */
  countsAsFailure?: (status: number) => boolean;
  breaker?: RemoteGuardOptions['breaker'];
  /** Where calls and breaker state are counted; defaults to the metrics of the running service. */
  metrics?: ServiceMetrics;
  /**
   * The `client` label in the metrics; defaults to `name`. Clients created per remote (one per
   * customer endpoint) should share one label, so that the series stay few.
   */
  metricsLabel?: string;
  /**
   * A remote outside Switchboard (the provider, a customer): calls are traced here but carry no
   * `traceparent`, so that our trace ids do not leave. Default false: internal calls propagate.
   */
  outsideRemote?: boolean;
}

export interface OutboundClient {
  readonly name: string;
  /** Resolves with the response whatever its status; rejects only with an OutboundError. */
  request<T = unknown>(config: AxiosRequestConfig): Promise<AxiosResponse<T>>;
  /**
   * POSTs `body` as JSON to `path` under the base URL, over node:http(s) on a keep-alive agent
   * rather than axios (a hot path's call: axios' config merging, adapters and response wrapping
   * cost more than the exchange). Same timeout, breaker, metrics and tracing as `request`;
   * resolves with the status and the parsed JSON answer (its text when not JSON).
   */
  postJson<T = unknown>(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; data: T }>;
  isCircuitOpen(): boolean;
  shutdown(): void;
}

const defaultCountsAsFailure = () => false;

/** The one way to call a remote: explicit timeout, no redirects, and a breaker so a dead remote fails fast. */
export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const countsAsFailure = options.countsAsFailure ?? defaultCountsAsFailure;
  const instance = axios.create({
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRedirects: 0,
    validateStatus: () => true,
  });
  const guard = createRemoteGuard({
    name: options.name,
    logger: options.logger,
    probeBaseURL: options.outsideRemote ? undefined : options.baseURL,
    breaker: options.breaker,
    metrics: options.metrics,
    metricsLabel: options.metricsLabel,
  });

  const base = options.baseURL ? new URL(options.baseURL) : undefined;
  const secure = base?.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });

  function guarded<R extends { status: number }>(call: () => Promise<R>): Promise<R> {
    const run = () =>
      guard.run(
        async () => {
          const response = await call();
          if (countsAsFailure(response.status)) {
            throw new CountedAnswer(response.status, response);
          }
          return response;
        },
        (response) => response.status,
      );
    return options.outsideRemote ? withheldTraceContext(run) : run();
  }

  return {
    name: options.name,
    request<T>(config: AxiosRequestConfig): Promise<AxiosResponse<T>> {
      return guarded(() => instance.request<T>(config));
    },
    postJson<T>(path: string, body: unknown, headers: Record<string, string> = {}) {
      if (!base) throw new Error(`${options.name}: postJson needs a baseURL`);
      const payload = Buffer.from(JSON.stringify(body));
      return guarded(() =>
        exchangeJson<T>(
          secure ? https : http,
          agent,
          new URL(`${base.pathname.replace(/\/+$/, '')}${path}`, base),
          payload,
          headers,
          options.timeoutMs,
        ),
      );
    },
    isCircuitOpen: () => guard.isCircuitOpen(),
    shutdown: () => {
      guard.shutdown();
      agent.destroy();
    },
  };
}

/**
 * One POST: no redirects followed (a 3xx is an answer like any other), the whole exchange bounded
 * by `timeoutMs` (ETIMEDOUT, which the guard counts as a timeout).
 */
function exchangeJson<T>(
  transport: typeof http | typeof https,
  agent: http.Agent,
  url: URL,
  payload: Buffer,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; data: T }> {
  return new Promise((resolve, reject) => {
    const request = transport.request(url, {
      method: 'POST',
      agent,
      headers: {
        accept: 'application/json',
        ...headers,
        'content-type': 'application/json',
        'content-length': payload.length,
      },
    });
    const timer = setTimeout(() => {
      request.destroy(
        Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEDOUT' }),
      );
    }, timeoutMs);
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      response.once('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let data: unknown = text;
        if (String(response.headers['content-type']).includes('json') && text !== '') {
          try {
            data = JSON.parse(text);
          } catch {
            data = text;
          }
        }
        resolve({ status: response.statusCode ?? 0, data: data as T });
      });
    });
    request.end(payload);
  });
}
