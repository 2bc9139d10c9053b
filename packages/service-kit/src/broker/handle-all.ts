import { PermanentError, RetryLaterError } from './errors';

/**
 * Waits for every item of a batch message to be handled (each started by `handled`, side by
 * side); when some failed, the message's outcome is the most hopeful failure: one that a retry
 * may cure before one that parks, so that an item which cannot be handled yet is not parked
 * beside one that never can. A batch is thus acked once all of it is handled, retried whole
 * otherwise (its handlers are idempotent, so what was done changes nothing the second time),
 * and parked whole only when what is left can never be handled.
 */
export async function handleAll(handled: Promise<unknown>[]): Promise<void> {
  const failures = (await Promise.allSettled(handled)).flatMap((outcome) =>
    outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
  );
  if (failures.length === 0) return;
  throw (
    failures.find((error) => error instanceof RetryLaterError) ??
    failures.find((error) => !(error instanceof PermanentError)) ??
    failures[0]
  );
}
