/** Thrown by a handler when retrying cannot help (e.g. the referenced record does not exist): parked at once. */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
  /** Short cause written to `x-dead-reason`; the message when not given. */
  readonly reason: string;

  constructor(message: string, options: { reason?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.reason = options.reason ?? message;
  }
}

/**
 * Thrown by a handler when the work is held elsewhere for a while (another process's lease on
 * it, which a crash leaves until it expires): the message is retried without spending an
 * attempt, up to the consumer's `maxPostponements`; after those, retries spend attempts again.
 */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
}

export type PublishFailureKind =
  'invalid' | 'not_connected' | 'stopped' | 'unroutable' | 'nacked' | 'timeout';

/** Every way a publish can fail; the caller (an outbox relay) keeps the event and tries again later. */
export class PublishError extends Error {
  override readonly name = 'PublishError';

  constructor(
    readonly kind: PublishFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
