import { createTtlCache, loadThrough } from '../../src';

describe('createTtlCache', () => {
  test('when an entry is read within its lifetime, then it is returned, and once the lifetime is over it is gone', () => {
    const cache = createTtlCache<string, number>({ ttlMs: 1_000, maxEntries: 10 });
    cache.set('a', 1, 5_000);

    expect(cache.get('a', 5_999)).toBe(1);
    expect(cache.get('a', 6_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test('when the cache is full, then storing another entry drops the one stored longest ago, and storing a key again makes it the newest', () => {
    const cache = createTtlCache<string, number>({ ttlMs: 1_000, maxEntries: 3 });
    cache.set('a', 1, 0);
    cache.set('b', 2, 1);
    cache.set('c', 3, 2);
    cache.set('a', 10, 3); // stored again: now the newest
    cache.set('d', 4, 4);

    expect(cache.size).toBe(3);
    expect(cache.get('b', 5)).toBeUndefined();
    expect([cache.get('a', 5), cache.get('c', 5), cache.get('d', 5)]).toEqual([10, 3, 4]);
  });

  test('when entries have expired, then the next store drops them, so the cache holds only live entries', () => {
    const cache = createTtlCache<number, string>({ ttlMs: 100, maxEntries: 1_000 });
    for (let key = 0; key < 500; key++) cache.set(key, `v${key}`, key);

    cache.set(999, 'late', 550); // entries stored at 450 or before have expired

    expect(cache.size).toBe(50);
    expect(cache.get(450, 550)).toBeUndefined();
    expect(cache.get(451, 550)).toBe('v451');
  });

  test('when the lifetime is 0, then nothing is cached; and a deleted entry is gone at once', () => {
    const none = createTtlCache<string, number>({ ttlMs: 0, maxEntries: 10 });
    none.set('a', 1);
    expect(none.get('a')).toBeUndefined();

    const cache = createTtlCache<string, number>({ ttlMs: 1_000, maxEntries: 10 });
    cache.set('a', 1);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });

  test('when a cache is asked for no room, then it refuses to be made', () => {
    expect(() => createTtlCache({ ttlMs: 1_000, maxEntries: 0 })).toThrow(/at least one entry/);
  });
});

describe('loadThrough', () => {
  test('when callers ask for the same key while it loads, then one load answers them all, and later callers get the stored answer', async () => {
    const cache = createTtlCache<string, Promise<number>>({ ttlMs: 60_000, maxEntries: 10 });
    let loads = 0;
    const load = async () => ++loads;

    const answers = await Promise.all([1, 2, 3].map(() => loadThrough(cache, 'k', load)));
    const later = await loadThrough(cache, 'k', load);

    expect(answers).toEqual([1, 1, 1]);
    expect(later).toBe(1);
    expect(loads).toBe(1);
  });

  test('when a load fails, or keep refuses its value, then it is forgotten and the next caller loads again', async () => {
    const cache = createTtlCache<string, Promise<string>>({ ttlMs: 60_000, maxEntries: 10 });
    await expect(loadThrough(cache, 'k', () => Promise.reject(new Error('down')))).rejects.toThrow(
      'down',
    );
    await Promise.resolve(); // the rejection handler runs
    expect(cache.get('k')).toBeUndefined();

    const keepConnected = (value: string) => value === 'connected';
    await loadThrough(cache, 'k', async () => 'disconnected', keepConnected);
    await Promise.resolve();
    expect(cache.get('k')).toBeUndefined();

    await loadThrough(cache, 'k', async () => 'connected', keepConnected);
    await Promise.resolve();
    await expect(cache.get('k')).resolves.toBe('connected');
  });
});
