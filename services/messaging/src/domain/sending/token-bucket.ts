/**
 * Paces sends per phone number to the provider's throughput (80 messages/s by default,
 * as the Cloud API documents it): a token bucket that lets a caller wait for its turn instead of failing.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number = ratePerSecond,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(ratePerSecond > 0) || !(burst >= 1)) throw new RangeError('rate > 0 and burst >= 1');
    this.tokens = burst;
    this.updatedAt = now();
  }

  /** Takes a token now, or says how many milliseconds to wait before trying again. */
  tryTake(): number {
    const now = this.now();
    this.tokens = Math.min(
      this.burst,
      this.tokens + ((now - this.updatedAt) / 1000) * this.ratePerSecond,
    );
    this.updatedAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000);
  }

  async take(): Promise<void> {
    for (let wait = this.tryTake(); wait > 0; wait = this.tryTake()) {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
