import CircuitBreaker from 'opossum';
import type { Logger } from './logger';
import { currentServiceMetrics, type OutboundOutcome, type ServiceMetrics } from './metrics';
import { closeBreakerWhenReady } from './readiness-probe';

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

/**
 * Thrown by an attempt whose answer counts against the breaker (a 5xx of an outside remote): the
 * breaker sees a failure, and the guard hands `answer` back to the caller all the same.
 */
export class CountedAnswer<T> extends Error {
  constructor(
    readonly status: number,
    readonly answer: T,
  ) {
    super(`status ${status}`);
  }
}

export interface RemoteGuardOptions {
  name: string;
  logger: Logger;
  /**
   * Another Switchboard service's base URL: while the breaker is open because it gave no answer,
   * its `/readyz` is probed and the breaker closes as soon as it is ready. Omit for remotes
   * outside Switchboard.
   */
  probeBaseURL?: string;
  breaker?: {
    errorThresholdPercentage?: number;
    resetTimeoutMs?: number;
    volumeThreshold?: number;
  };
  /** Where calls and breaker state are counted; defaults to the metrics of the running service. */
  metrics?: ServiceMetrics;
  /** The `client` label in the metrics; defaults to `name`. */
  metricsLabel?: string;
}

export interface RemoteGuard {
  /**
   * Runs `attempt` through the breaker and counts it. `statusOf` reads the answer's status for the
   * metrics. Resolves with the answer (also one thrown as a CountedAnswer); any other rejection
   * becomes an OutboundError (an error with code ETIMEDOUT or ECONNABORTED is a timeout).
   */
  run<T>(attempt: () => Promise<T>, statusOf: (answer: T) => number): Promise<T>;
  isCircuitOpen(): boolean;
  shutdown(): void;
}

/**
 * The breaker, readiness probe and metrics of calls to one remote, whatever carries the calls
 * (axios in the outbound client, a keep-alive node:http agent in the gateway's proxy).
 */
export function createRemoteGuard(options: RemoteGuardOptions): RemoteGuard {
  const breaker = new CircuitBreaker((attempt: () => Promise<unknown>) => attempt(), {
    timeout: false,
    errorThresholdPercentage: options.breaker?.errorThresholdPercentage ?? 50,
    resetTimeout: options.breaker?.resetTimeoutMs ?? 10_000,
    volumeThreshold: options.breaker?.volumeThreshold ?? 5,
  });
  const log = options.logger.child({ client: options.name });
  breaker.on('open', () => log.warn('circuit opened'));
  breaker.on('halfOpen', () => log.info('circuit half-open'));
  breaker.on('close', () => log.info('circuit closed'));
  // Another Switchboard service says itself when it is back (`/readyz`): a breaker opened while it
  // restarted closes as soon as it is ready, not a whole reset timeout later.
  let lastFailureUnanswered = false;
  breaker.on('failure', (error) => {
    lastFailureUnanswered = !(error instanceof CountedAnswer);
  });
  const stopProbing = options.probeBaseURL
    ? closeBreakerWhenReady(breaker, options.probeBaseURL, () => lastFailureUnanswered)
    : undefined;

  const metrics = options.metrics ?? currentServiceMetrics();
  const label = options.metricsLabel ?? options.name;
  const untrackBreaker = metrics?.trackBreaker(label, () =>
    breaker.opened ? 'open' : breaker.halfOpen ? 'half_open' : 'closed',
  );
  const observe = (outcome: OutboundOutcome, started: number) =>
    metrics?.observeOutboundCall(label, outcome, (performance.now() - started) / 1000);

  return {
    async run<T>(attempt: () => Promise<T>, statusOf: (answer: T) => number): Promise<T> {
      const started = performance.now();
      try {
        const answer = (await breaker.fire(attempt)) as T;
        observe(statusClass(statusOf(answer)), started);
        return answer;
      } catch (error) {
        if (error instanceof CountedAnswer) {
          observe(statusClass(error.status), started);
          return error.answer as T;
        }
        const failure = toOutboundError(options.name, error);
        observe(failure.kind, started);
        throw failure;
      }
    },
    isCircuitOpen: () => breaker.opened,
    shutdown: () => {
      stopProbing?.();
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
