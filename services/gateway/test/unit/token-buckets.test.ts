import { createTokenBuckets, shareOf } from '../../src/domain/token-buckets';

const rate = { perSecond: 10, burst: 20 };

describe('token buckets', () => {
  test('when a key spends its burst, then the next request is refused until one has refilled', () => {
    const buckets = createTokenBuckets();
    for (let i = 0; i < 20; i++) expect(buckets.take('k', rate, 1_000).allowed).toBe(true);
    const refused = buckets.take('k', rate, 1_000);
    expect(refused).toEqual({
      allowed: false,
      remaining: 0,
      resetSeconds: 2,
      retryAfterSeconds: 1,
    });
    expect(buckets.take('k', rate, 1_099).allowed).toBe(false);
    expect(buckets.take('k', rate, 1_100)).toMatchObject({ allowed: true, remaining: 0 });
    expect(buckets.take('other', rate, 1_100)).toMatchObject({ allowed: true, remaining: 19 });
  });

  test('when a key waits long enough, then its bucket is full again and never fuller', () => {
    const buckets = createTokenBuckets();
    for (let i = 0; i < 20; i++) buckets.take('k', rate, 0);
    expect(buckets.peek('k', rate, 60_000)).toMatchObject({ allowed: true, remaining: 20 });
    expect(buckets.take('k', rate, 60_000)).toMatchObject({ remaining: 19, resetSeconds: 1 });
  });

  test('when the rate is shared by replicas, then each enforces its share and at least one request', () => {
    expect(shareOf({ perSecond: 50, burst: 100 }, 4)).toEqual({ perSecond: 12.5, burst: 25 });
    expect(shareOf({ perSecond: 1, burst: 2 }, 4)).toEqual({ perSecond: 0.25, burst: 1 });
  });
});
