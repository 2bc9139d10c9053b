/** Pauses that can be cut short: backoff sleeps by stop(), waits for a channel by its arrival. */
export class WakeablePauses {
  private readonly wakers = new Set<() => void>();

  pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.wakers]) wake();
  }
}

/** Settles like `work`, or with `onTimeout()` once `ms` have passed, whichever comes first. */
export async function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => T | Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<T>((resolve, reject) => {
    timer = setTimeout(
      () => {
        const fallback = onTimeout();
        if (fallback instanceof Error) reject(fallback);
        else resolve(fallback);
      },
      Math.max(ms, 0),
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
