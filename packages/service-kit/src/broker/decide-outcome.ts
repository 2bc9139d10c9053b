import type { ZodType } from 'zod';
import { describeZodError } from '../errors';
import { PermanentError, RetryLaterError, errorMessage } from './errors';

export type Outcome =
  | { action: 'ack' }
  /** `postpone`: retried without spending an attempt (a RetryLaterError). */
  | { action: 'retry'; reason: string; error: unknown; postpone?: boolean }
  | { action: 'park'; reason: string; error?: unknown };

export interface DecideOptions<T> {
  schema: ZodType<T>;
  attempt: number;
  maxAttempts: number;
  /** Retries already made without spending an attempt, and how many are allowed. */
  postponed?: number;
  maxPostponements?: number;
  handle: (body: T) => Promise<void>;
}

/**
 * The one place a delivery's fate is decided. Poison (unparsable or invalid) is parked at once,
 * since no retry can fix it; a PermanentError is parked at once; anything else is retried until
 * the attempts run out, then parked. Nothing is ever requeued in place.
 */
export async function decideOutcome<T>(
  content: Buffer,
  options: DecideOptions<T>,
): Promise<Outcome> {
  let json: unknown;
  try {
    json = JSON.parse(content.toString('utf8'));
  } catch (error) {
    return { action: 'park', reason: `unparsable JSON: ${errorMessage(error)}` };
  }
  const parsed = await options.schema.safeParseAsync(json);
  if (!parsed.success) {
    return { action: 'park', reason: `invalid message: ${describeZodError(parsed.error)}` };
  }
  try {
    await options.handle(parsed.data);
    return { action: 'ack' };
  } catch (error) {
    if (error instanceof PermanentError) return { action: 'park', reason: error.reason, error };
    const reason = errorMessage(error);
    if (
      error instanceof RetryLaterError &&
      (options.postponed ?? 0) < (options.maxPostponements ?? 0)
    ) {
      return { action: 'retry', reason, error, postpone: true };
    }
    return options.attempt >= options.maxAttempts
      ? { action: 'park', reason, error }
      : { action: 'retry', reason, error };
  }
}
