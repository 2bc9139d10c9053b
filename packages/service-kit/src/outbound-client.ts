import axios, { type AxiosRequestConfig, type AxiosResponse } from 'axios';
import CircuitBreaker from 'opossum';
import type { Logger } from './logger';
import { currentServiceMetrics, type OutboundOutcome, type ServiceMetrics } from './metrics';
import { withheldTraceContext } from './trace-context';

export type OutboundFailureKind = 'timeout' | 'unreachable' | 'circuit_open';

/** A call to a remote that produced no usable answer; callers map it to their own error. */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  constructor(
    readonly client: string,
    readonly kind: OutboundFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Carries a response that counts against the breaker out of the breaker, then back to the caller. */
class FailedResponse extends Error {
  constructor(readonly response: AxiosResponse) {
    super(`status ${response.status}`);
  }
}

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
  breaker?: {
    errorThresholdPercentage?: number;
    resetTimeoutMs?: number;
    volumeThreshold?: number;
  };
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
  const breaker = new CircuitBreaker(
    async (config: AxiosRequestConfig) => {
      const response = await instance.request(config);
      if (countsAsFailure(response.status)) throw new FailedResponse(response);
      return response;
    },
    {
      timeout: false,
      errorThresholdPercentage: options.breaker?.errorThresholdPercentage ?? 50,
      resetTimeout: options.breaker?.resetTimeoutMs ?? 10_000,
      volumeThreshold: options.breaker?.volumeThreshold ?? 5,
    },
  );
  const log = options.logger.child({ client: options.name });
  breaker.on('open', () => log.warn('circuit opened'));
  breaker.on('halfOpen', () => log.info('circuit half-open'));
  breaker.on('close', () => log.info('circuit closed'));

  const metrics = options.metrics ?? currentServiceMetrics();
  const label = options.metricsLabel ?? options.name;
  const untrackBreaker = metrics?.trackBreaker(label, () =>
    breaker.opened ? 'open' : breaker.halfOpen ? 'half_open' : 'closed',
  );
  const observe = (outcome: OutboundOutcome, started: number) =>
    metrics?.observeOutboundCall(label, outcome, (performance.now() - started) / 1000);

  return {
    name: options.name,
    async request<T>(config: AxiosRequestConfig): Promise<AxiosResponse<T>> {
      const started = performance.now();
      try {
        const fire = () => breaker.fire(config) as Promise<AxiosResponse<T>>;
        const response = await (options.outsideRemote ? withheldTraceContext(fire) : fire());
        observe(statusClass(response.status), started);
        return response;
      } catch (error) {
        if (error instanceof FailedResponse) {
          observe(statusClass(error.response.status), started);
          return error.response as AxiosResponse<T>;
        }
        const failure = toOutboundError(options.name, error);
        observe(failure.kind, started);
        throw failure;
      }
    },
    isCircuitOpen: () => breaker.opened,
    shutdown: () => {
      untrackBreaker?.();
      breaker.shutdown();
    },
  };
}

function statusClass(status: number): OutboundOutcome {
  return `${Math.min(Math.max(Math.floor(status / 100), 1), 5)}xx` as OutboundOutcome;
}

function toOutboundError(client: string, error: unknown): OutboundError {
  const code = (error as { code?: string })?.code;
  if (code === 'EOPENBREAKER') {
    return new OutboundError(client, 'circuit_open', `${client} is failing; calls are paused`, {
      cause: error,
    });
  }
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') {
    return new OutboundError(client, 'timeout', `${client} did not answer in time`, {
      cause: error,
    });
  }
  return new OutboundError(client, 'unreachable', `${client} could not be reached`, {
    cause: error,
  });
}
