import type CircuitBreaker from 'opossum';

const PROBE_INTERVAL_MS = 250;
const PROBE_TIMEOUT_MS = 1_000;

/**
 * While the breaker is open because the remote gave no answer, asks the remote's `/readyz` every
 * 250 ms and closes the breaker as soon as it answers 200. Every Switchboard service serves
 * `/readyz`, so a breaker opened by a restarting service (refused connections) closes within a
 * quarter second of its return rather than a whole reset timeout (10 s) later; one still down, or
 * hung, keeps failing the probe. A breaker opened by answers that count as failures is about those
 * answers, not reachability: `openedWithoutAnswer` says which, and only the first is probed.
 * Returns a function that stops probing.
 */
export function closeBreakerWhenReady(
  breaker: CircuitBreaker,
  baseURL: string,
  openedWithoutAnswer: () => boolean,
): () => void {
  const readyUrl = `${baseURL.replace(/\/+$/, '')}/readyz`;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const schedule = () => {
    if (stopped || timer) return;
    timer = setTimeout(probe, PROBE_INTERVAL_MS);
    timer.unref();
  };
  const probe = async () => {
    timer = undefined;
    if (!breaker.opened) return;
    const ready = await fetch(readyUrl, {
      redirect: 'manual',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).then(
      async (response) => {
        await response.body?.cancel();
        return response.status === 200;
      },
      () => false,
    );
    if (stopped || !breaker.opened) return;
    if (ready) breaker.close();
    else schedule();
  };

  breaker.on('open', () => {
    if (openedWithoutAnswer()) schedule();
  });
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
