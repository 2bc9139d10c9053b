export type Release = () => void;

interface Waiter {
  grant: (release: Release | undefined) => void;
  timer: NodeJS.Timeout | undefined;
}

interface Endpoint {
  /** The requests in flight. */
  active: Set<object>;
  waiting: Waiter[];
  /** When a request last finished, or the endpoint last went from idle to busy. */
  lastProgress: number;
}

export interface EndpointGateOptions {
  /** Requests in flight to one endpoint at a time. */
  concurrency: number;
  /** An endpoint that has finished no request for this long while busy is stalled: nobody queues for it. */
  slowAfterMs?: number;
  /** The longest a delivery waits for a slot before it is put off instead. */
  maxWaitMs?: number;
  now?: () => number;
}

/**
 * Per-endpoint concurrency limit. A delivery gets a slot, or waits for one while the endpoint
 * keeps finishing requests (a burst to a healthy endpoint drains at its full speed), or is told
 * to go away (postponed through a retry queue, its attempt not spent) once the endpoint has
 * finished nothing for `slowAfterMs`: a hanging endpoint never holds more of the prefetch window
 * than its own concurrency, and the other endpoints keep theirs. Judging progress rather than
 * the age of one request keeps a busy process (GC, event-loop lag) from looking like a slow
 * endpoint.
 */
export class EndpointGate {
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly slowAfterMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(private readonly options: EndpointGateOptions) {
    this.slowAfterMs = options.slowAfterMs ?? 500;
    this.maxWaitMs = options.maxWaitMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Resolves with a release function once the delivery holds a slot, or with undefined when it
   * should be postponed. With `mustWait`, it waits as long as it takes (no more postponing).
   */
  enter(key: string, mustWait = false): Promise<Release | undefined> {
    const endpoint = this.endpointFor(key);
    if (endpoint.active.size < this.options.concurrency) {
      return Promise.resolve(this.take(key, endpoint));
    }
    if (!mustWait && this.isSlow(endpoint)) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = { grant: resolve, timer: undefined };
      endpoint.waiting.push(waiter);
      if (mustWait) return;
      const since = this.now();
      const giveUp = () => {
        endpoint.waiting.splice(endpoint.waiting.indexOf(waiter), 1);
        this.forgetIfIdle(key, endpoint);
        resolve(undefined);
      };
      // Wake when the endpoint would count as stalled, or at the latest after maxWaitMs; a slot
      // handed over before then cancels the timer.
      const arm = () => {
        const waited = this.now() - since;
        const untilSlow = endpoint.lastProgress + this.slowAfterMs - this.now() + 1;
        waiter.timer = setTimeout(
          () => (this.isSlow(endpoint) || this.now() - since >= this.maxWaitMs ? giveUp() : arm()),
          Math.max(1, Math.min(this.maxWaitMs - waited, untilSlow)),
        );
      };
      arm();
    });
  }

  /** Requests in flight to `key`, for tests and metrics. */
  inFlight(key: string): number {
    return this.endpoints.get(key)?.active.size ?? 0;
  }

  private endpointFor(key: string): Endpoint {
    let endpoint = this.endpoints.get(key);
    if (!endpoint) {
      endpoint = { active: new Set(), waiting: [], lastProgress: this.now() };
      this.endpoints.set(key, endpoint);
    }
    return endpoint;
  }

  private isSlow(endpoint: Endpoint): boolean {
    return this.now() - endpoint.lastProgress > this.slowAfterMs;
  }

  private take(key: string, endpoint: Endpoint): Release {
    const slot = {};
    if (endpoint.active.size === 0 && endpoint.waiting.length === 0) {
      endpoint.lastProgress = this.now();
    }
    endpoint.active.add(slot);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      endpoint.active.delete(slot);
      endpoint.lastProgress = this.now();
      const next = endpoint.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.grant(this.take(key, endpoint));
      } else {
        this.forgetIfIdle(key, endpoint);
      }
    };
  }

  private forgetIfIdle(key: string, endpoint: Endpoint): void {
    if (endpoint.active.size === 0 && endpoint.waiting.length === 0) this.endpoints.delete(key);
  }
}
