// When the launcher restarts a process that exited unasked, and when it stops trying.

/**
 * One per supervised process. Restarts come quickly at first (a kill -9 should cost seconds, not
 * minutes), then further apart while the process keeps dying young; a process that stayed up
 * `stableAfterMs` starts again from the first delay. `maxCrashes` exits within `windowMs` mean
 * something is wrong that a restart will not fix (bad configuration, a dependency gone): the
 * launcher gives up on that process and says why.
 *
 * @param {object} [options]
 * @param {number} [options.firstDelayMs]   delay before the first restart of a streak
 * @param {number} [options.maxDelayMs]     the delay doubles per crash up to this
 * @param {number} [options.stableAfterMs]  a run this long ends the streak
 * @param {number} [options.maxCrashes]     this many exits within `windowMs` → give up
 * @param {number} [options.windowMs]
 */
function createRestartPolicy({
  firstDelayMs = 100,
  maxDelayMs = 15_000,
  stableAfterMs = 30_000,
  maxCrashes = 5,
  windowMs = 60_000,
} = {}) {
  let streak = 0;
  let exits = [];
  return {
    /**
     * @param {{ startedAt: number, exitedAt: number }} run  when the process started and exited (ms)
     * @returns {{ restart: true, delayMs: number, crashes: number } | { restart: false, reason: string, crashes: number }}
     */
    onExit({ startedAt, exitedAt }) {
      if (exitedAt - startedAt >= stableAfterMs) streak = 0;
      streak += 1;
      exits = [...exits.filter((at) => exitedAt - at < windowMs), exitedAt];
      if (exits.length >= maxCrashes) {
        return {
          restart: false,
          crashes: exits.length,
          reason: `${exits.length} exits within ${windowMs / 1000} s`,
        };
      }
      return {
        restart: true,
        crashes: exits.length,
        delayMs: Math.min(firstDelayMs * 2 ** (streak - 1), maxDelayMs),
      };
    },
  };
}

module.exports = { createRestartPolicy };
