/**
 * Every timer and in-flight webhook of the simulator goes through here, so that `reset()` and
 * `stop()` can cancel them all: nothing fires after a test has moved on.
 */
export class Scheduler {
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private controller = new AbortController();

  /** Resolves true after `ms`, or false as soon as the scheduler is cancelled. */
  sleep(ms: number): Promise<boolean> {
    if (this.controller.signal.aborted) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve(true);
      }, ms);
      this.timers.set(timer, () => resolve(false));
    });
  }

  /** Runs a task in the background; its failure is reported, never thrown. */
  run(task: () => Promise<unknown>, onError: (error: unknown) => void): void {
    void task().catch(onError);
  }

  /** Aborted when the scheduler is cancelled: pass it to outgoing requests. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  cancelAll(): void {
    for (const [timer, wake] of this.timers) {
      clearTimeout(timer);
      wake();
    }
    this.timers.clear();
    this.controller.abort();
  }

  /** After a reset the simulator keeps running with a fresh scheduler state. */
  renew(): void {
    this.cancelAll();
    this.controller = new AbortController();
  }
}
