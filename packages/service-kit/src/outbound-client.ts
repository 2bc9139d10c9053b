import axios, { type AxiosRequestConfig, type AxiosResponse } from 'axios';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { CountedAnswer, createRemoteGuard } from './remote-guard';
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
  const guard = createRemoteGuard({
    name: options.name,
    logger: options.logger,
    probeBaseURL: options.outsideRemote ? undefined : options.baseURL,
    breaker: options.breaker,
    metrics: options.metrics,
    metricsLabel: options.metricsLabel,
  });

  return {
    name: options.name,
    request<T>(config: AxiosRequestConfig): Promise<AxiosResponse<T>> {
      const run = () =>
        guard.run(
          async () => {
            const response = await instance.request<T>(config);
            if (countsAsFailure(response.status)) {
              throw new CountedAnswer(response.status, response);
            }
            return response;
          },
          (response) => response.status,
        );
      return options.outsideRemote ? withheldTraceContext(run) : run();
    },
    isCircuitOpen: () => guard.isCircuitOpen(),
    shutdown: () => guard.shutdown(),
  };
}
