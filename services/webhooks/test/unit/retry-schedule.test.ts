import { QUEUES, topologyFor, type QueueDeclaration } from '@switchboard/contracts';
import { RetrySchedule } from '../../src/domain/retry-schedule';

describe('RetrySchedule', () => {
  const schedule = new RetrySchedule(3, [10_000, 30_000, 60_000]);

  test('when attempt 2 and 3 are due, then they wait in the 10 s and 30 s queues', () => {
    expect(schedule.stepBefore(2)).toEqual({
      routingKey: '10s',
      queue: QUEUES.webhooksRetry10s,
      delayMs: 10_000,
    });
    expect(schedule.stepBefore(3)).toMatchObject({ routingKey: '30s', delayMs: 30_000 });
    expect(schedule.stepBefore(4)).toMatchObject({ routingKey: '60s', delayMs: 60_000 });
    expect(schedule.stepBefore(9)).toMatchObject({ routingKey: '60s' });
    expect(schedule.postponeStep.routingKey).toBe('10s');
  });

  test('when attempts are counted, then there is one after 1 and 2 and none after 3', () => {
    expect([1, 2, 3].map((n) => schedule.hasAttemptAfter(n))).toEqual([true, true, false]);
    expect(RetrySchedule.label(2, 3)).toBe('2 / 3');
  });

  test('when the delays are scaled down, then the topology keeps the shared names and shape with the new TTLs', () => {
    const scaled = new RetrySchedule(3, [200, 400, 600]).topology();
    const shared = topologyFor('webhooks');
    expect(scaled.map((item) => `${item.kind}:${'name' in item ? item.name : item.queue}`)).toEqual(
      shared.map((item) => `${item.kind}:${'name' in item ? item.name : item.queue}`),
    );
    const ttl = (name: string) =>
      (scaled.find((item) => item.kind === 'queue' && item.name === name) as QueueDeclaration)
        .arguments['x-message-ttl'];
    expect(
      [QUEUES.webhooksRetry10s, QUEUES.webhooksRetry30s, QUEUES.webhooksRetry60s].map(ttl),
    ).toEqual([200, 400, 600]);
    // The default schedule is exactly the shared topology.
    expect(schedule.topology()).toEqual(shared);
  });

  test('when the number of delays is not three, then the schedule refuses them', () => {
    expect(() => new RetrySchedule(3, [1, 2])).toThrow(RangeError);
  });
});
