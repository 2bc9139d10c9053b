import { createRestartPolicy } from '../../scripts/restart-policy';

/** Exits `upMs` after each start, the next start `delayMs` after the exit the policy decided. */
function crashLoop(policy: ReturnType<typeof createRestartPolicy>, upMs: number, times: number) {
  const decisions = [];
  let now = 0;
  for (let i = 0; i < times; i++) {
    const startedAt = now;
    now += upMs;
    const decision = policy.onExit({ startedAt, exitedAt: now });
    decisions.push(decision);
    if (!decision.restart) break;
    now += decision.delayMs;
  }
  return decisions;
}

describe('the restart policy of a supervised process', () => {
  test('when a process dies young again and again, then each restart waits twice as long, from 100 ms', () => {
    const decisions = crashLoop(createRestartPolicy({ maxCrashes: 100 }), 1_000, 10);
    expect(decisions.map((d) => (d.restart ? d.delayMs : 'gave up'))).toEqual([
      100, 200, 400, 800, 1_600, 3_200, 6_400, 12_800, 15_000, 15_000,
    ]);
  });

  test('when a process stayed up long enough before it died, then its next restart is fast again', () => {
    const policy = createRestartPolicy({ maxCrashes: 100 });
    crashLoop(policy, 1_000, 4);
    const decision = policy.onExit({ startedAt: 100_000, exitedAt: 130_000 });
    expect(decision).toMatchObject({ restart: true, delayMs: 100 });
  });

  test('when a process exits 5 times within a minute, then the policy gives up on it and says why', () => {
    const decisions = crashLoop(createRestartPolicy(), 2_000, 10);
    expect(decisions).toHaveLength(5);
    expect(decisions.slice(0, 4).every((d) => d.restart)).toBe(true);
    expect(decisions[4]).toEqual({ restart: false, crashes: 5, reason: '5 exits within 60 s' });
  });

  test('when exits are spread wider than the window, then the policy keeps restarting', () => {
    const policy = createRestartPolicy();
    const decisions = [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
      policy.onExit({ startedAt: i * 40_000, exitedAt: i * 40_000 + 35_000 }),
    );
    expect(decisions.every((d) => d.restart && d.delayMs === 100)).toBe(true);
  });
});
