import { createLogger } from '@switchboard/service-kit';
import { startRetentionCleanup } from '../../src/domain/retention';

describe('retention cleanup', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-22T12:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  test('when it runs, then logs older than the retention go, and deliveries (their payloads) a day later', async () => {
    const deleteOld = jest.fn().mockResolvedValue(3);
    const job = startRetentionCleanup(
      { deleteOld },
      { days: 30, logger: createLogger('test', 'silent'), everyMs: 3_600_000 },
    );
    expect(deleteOld).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(deleteOld).toHaveBeenCalledWith(
      new Date('2026-10-23T12:01:00Z'),
      new Date('2026-10-22T12:01:00Z'),
    );
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(deleteOld).toHaveBeenCalledTimes(2);
    await job.stop();
    await jest.advanceTimersByTimeAsync(10 * 3_600_000);
    expect(deleteOld).toHaveBeenCalledTimes(2);
  });

  test('when the database fails, then the job logs it and keeps its schedule', async () => {
    const deleteOld = jest.fn().mockRejectedValue(new Error('down'));
    const job = startRetentionCleanup(
      { deleteOld },
      { days: 1, logger: createLogger('test', 'silent'), everyMs: 1_000 },
    );
    await jest.advanceTimersByTimeAsync(62_000);
    expect(deleteOld.mock.calls.length).toBeGreaterThan(1);
    await job.stop();
  });
});
