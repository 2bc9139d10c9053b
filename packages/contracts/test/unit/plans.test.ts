import {
  FREE_TRIAL_DAYS,
  PLAN_LIMITS,
  PLAN_NAMES,
  QUOTA_MESSAGE_PREFIX,
  limitFor,
  monthKey,
  planHasExpired,
  quotaExceededMessage,
} from '../../src';

const DAY = 24 * 60 * 60 * 1000;
const started = new Date('2026-01-01T00:00:00Z');
const after = (days: number) => new Date(started.getTime() + days * DAY);

describe('PLAN_LIMITS', () => {
  test('when the plans are listed, then they are free, standard and premium', () => {
    expect(PLAN_NAMES).toEqual(['free', 'standard', 'premium']);
    expect(Object.keys(PLAN_LIMITS).sort()).toEqual([...PLAN_NAMES].sort());
  });

  test('when the limits are read, then they are those of the published plan limits with null for unlimited', () => {
    expect(PLAN_LIMITS).toEqual({
      free: { messagesPerMonth: 100, campaignsPerMonth: 2, contacts: 100, agents: 1 },
      standard: { messagesPerMonth: null, campaignsPerMonth: 100, contacts: null, agents: 10 },
      premium: { messagesPerMonth: null, campaignsPerMonth: 500, contacts: null, agents: null },
    });
  });
});

describe('planHasExpired', () => {
  test('when a free plan is one millisecond short of 30 days old, then it has not expired', () => {
    expect(FREE_TRIAL_DAYS).toBe(30);
    expect(planHasExpired('free', started, new Date(after(30).getTime() - 1))).toBe(false);
  });

  test('when a free plan is exactly 30 days old, then it has expired', () => {
    expect(planHasExpired('free', started, after(30))).toBe(true);
  });

  test.each(['standard', 'premium'] as const)(
    'when a %s plan is years old, then it has not expired',
    (plan) => {
      expect(planHasExpired(plan, started, after(3650))).toBe(false);
    },
  );
});

describe('limitFor', () => {
  test('when the free trial is running, then the free limits apply', () => {
    expect(limitFor('free', 'messagesPerMonth', started, after(1))).toBe(100);
    expect(limitFor('free', 'campaignsPerMonth', started, after(1))).toBe(2);
  });

  test('when the free trial has ended, then every limit is 0', () => {
    expect(limitFor('free', 'contacts', started, after(31))).toBe(0);
    expect(limitFor('free', 'agents', started, after(31))).toBe(0);
  });

  test('when a resource is unlimited on the plan, then the limit is null', () => {
    expect(limitFor('standard', 'messagesPerMonth', started, after(400))).toBeNull();
    expect(limitFor('premium', 'agents', started, after(400))).toBeNull();
    expect(limitFor('premium', 'campaignsPerMonth', started, after(400))).toBe(500);
  });
});

describe('monthKey', () => {
  test('when a date is given, then the key is its UTC year and zero-padded month', () => {
    expect(monthKey(new Date('2026-11-15T12:00:00Z'))).toBe('2026-11');
    expect(monthKey(new Date('2026-03-01T00:00:00Z'))).toBe('2026-03');
  });

  test('when local time is already next month but UTC is not, then the UTC month counts', () => {
    expect(monthKey(new Date('2026-01-31T23:30:00-02:00'))).toBe('2026-02');
    expect(monthKey(new Date('2026-02-01T00:30:00+02:00'))).toBe('2026-01');
  });

  test('when the last millisecond of December passes, then the year rolls over', () => {
    expect(monthKey(new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12');
    expect(monthKey(new Date('2027-01-01T00:00:00.000Z'))).toBe('2027-01');
  });
});

describe('quotaExceededMessage', () => {
  test('when a limit is hit or the trial has ended, then the message starts with the spec prefix', () => {
    const hit = quotaExceededMessage('free', 'messagesPerMonth', started, after(1));
    const ended = quotaExceededMessage('free', 'contacts', started, after(31));
    expect(hit.startsWith(QUOTA_MESSAGE_PREFIX)).toBe(true);
    expect(hit).toContain('100 messages per month');
    expect(ended.startsWith(QUOTA_MESSAGE_PREFIX)).toBe(true);
    expect(ended).toContain('trial');
  });
});
