export interface DelayRange {
  min: number;
  max: number;
}

export const DEFAULT_RECONNECT_DELAY_MS: DelayRange = { min: 500, max: 30_000 };

/**
 * Exponential backoff with full jitter above a floor: attempt n (from 1) waits somewhere in
 * [min, min·2^(n-1)], never more than max, so services that lost the broker together do not
 * all come back in the same instant.
 */
export function reconnectDelayMs(
  attempt: number,
  range: DelayRange,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(range.max, range.min * 2 ** exponent);
  return Math.round(range.min + random() * (ceiling - range.min));
}
