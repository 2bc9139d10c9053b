import { WEBHOOK_RETRY_STEPS, topologyFor, type TopologyDeclaration } from '@switchboard/contracts';

export interface RetryStep {
  routingKey: string;
  queue: string;
  delayMs: number;
}

/**
 * When attempts happen (the published delivery rules): the wait before attempt n+1 is the n-th configured delay,
 * each served by its own TTL queue so that every message in a queue waits the same time.
 */
export class RetrySchedule {
  readonly steps: readonly RetryStep[];

  constructor(
    readonly maxAttempts: number,
    delaysMs: readonly number[],
  ) {
    if (delaysMs.length !== WEBHOOK_RETRY_STEPS.length) {
      throw new RangeError(`expected ${WEBHOOK_RETRY_STEPS.length} retry delays`);
    }
    this.steps = WEBHOOK_RETRY_STEPS.map((step, index) => ({
      routingKey: step.routingKey,
      queue: step.queue,
      delayMs: delaysMs[index]!,
    }));
  }

  /** The queue that holds attempt `next` (≥ 2) back; attempts past the last step reuse it. */
  stepBefore(next: number): RetryStep {
    const index = Math.min(Math.max(next - 2, 0), this.steps.length - 1);
    return this.steps[index]!;
  }

  /** Where an attempt waits when it is put off without being spent: the shortest queue. */
  get postponeStep(): RetryStep {
    return this.steps[0]!;
  }

  hasAttemptAfter(attempt: number): boolean {
    return attempt < this.maxAttempts;
  }

  /** The delivery log's counter: `2 / 3`. */
  static label(attempt: number, maxAttempts: number): string {
    return `${attempt} / ${maxAttempts}`;
  }

  /**
   * The shared topology's webhooks part with these delays as the retry queues' TTLs: RabbitMQ
   * refuses to redeclare a queue with another `x-message-ttl`, so a scaled-down schedule
   * (tests) must run in a vhost of its own.
   */
  topology(): TopologyDeclaration[] {
    const ttlByQueue = new Map(this.steps.map((step) => [step.queue, step.delayMs]));
    return topologyFor('webhooks').map((item) => {
      const ttl = item.kind === 'queue' ? ttlByQueue.get(item.name) : undefined;
      return item.kind === 'queue' && ttl !== undefined
        ? { ...item, arguments: { ...item.arguments, 'x-message-ttl': ttl } }
        : item;
    });
  }
}
