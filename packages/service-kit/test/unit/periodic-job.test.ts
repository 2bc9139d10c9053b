import { Writable } from 'node:stream';
import { createLogger, startPeriodicJob } from '../../src';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function quietLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger('test', 'info', stream) };
}

describe('startPeriodicJob', () => {
  test('when a run fails, then it is logged and the next run still happens', async () => {
    const { lines, logger } = quietLogger();
    let runs = 0;
    const job = startPeriodicJob({
      name: 'flaky',
      everyMs: 10,
      firstAfterMs: 0,
      logger,
      run: async () => {
        runs += 1;
        if (runs === 1) throw new Error('database away');
      },
    });
    while (runs < 3) await sleep(5);
    await job.stop();
    expect(lines.join('')).toContain('database away');
    expect(lines.join('')).toContain('"job":"flaky"');
  });

  test('when stopped during a run, then stop waits for that run and no run starts afterwards', async () => {
    const { logger } = quietLogger();
    let started = 0;
    let finished = 0;
    const job = startPeriodicJob({
      name: 'slow',
      everyMs: 5,
      firstAfterMs: 0,
      logger,
      run: async () => {
        started += 1;
        await sleep(50);
        finished += 1;
      },
    });
    while (started === 0) await sleep(1);
    await job.stop();
    expect(finished).toBe(started);
    const after = started;
    await sleep(40);
    expect(started).toBe(after);
  });

  test('when runNow is called during a run, then no second run overlaps it', async () => {
    const { logger } = quietLogger();
    let inFlight = 0;
    let most = 0;
    const job = startPeriodicJob({
      name: 'single',
      everyMs: 60_000,
      logger,
      run: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await sleep(20);
        inFlight -= 1;
      },
    });
    await Promise.all([job.runNow(), job.runNow(), job.runNow()]);
    await job.stop();
    expect(most).toBe(1);
  });
});
