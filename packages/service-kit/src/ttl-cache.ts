/**
 * A bounded in-memory cache whose entries all live `ttlMs` from when they were stored.
 *
 * Eviction: an expired entry is never returned and is dropped when read; when the cache holds
 * `maxEntries`, storing another drops the entry stored longest ago. Every entry has the same
 * lifetime, so that is also the entry closest to expiring (a stored key is moved to the back).
 * Expired entries at the front are dropped on every store, so memory follows the live entries.
 * `ttlMs` 0 (or less) caches nothing.
 */
export interface TtlCache<K, V> {
  /** The value stored for `key` less than `ttlMs` ago, else undefined. */
  get(key: K, now?: number): V | undefined;
  set(key: K, value: V, now?: number): void;
  /** Forgets `key` at once (this process changed what it names). */
  delete(key: K): void;
  /** Entries held, expired ones not yet dropped included. */
  readonly size: number;
}

export function createTtlCache<K, V>(options: {
  ttlMs: number;
  maxEntries: number;
}): TtlCache<K, V> {
  const { ttlMs, maxEntries } = options;
  if (!(maxEntries >= 1)) throw new Error('a TTL cache needs room for at least one entry');
  // A Map iterates in insertion order: the first entry is the oldest and so the first to expire.
  const entries = new Map<K, { value: V; expiresAt: number }>();

  return {
    get(key, now = Date.now()) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt > now) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set(key, value, now = Date.now()) {
      entries.delete(key);
      if (ttlMs <= 0) return;
      for (const [oldest, entry] of entries) {
        if (entry.expiresAt > now && entries.size < maxEntries) break;
        entries.delete(oldest);
      }
      entries.set(key, { value, expiresAt: now + ttlMs });
    },
    delete(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}

/**
 * Read-through over a cache of promises: a fresh entry answers at once, else `load()` runs and
 * its promise is stored, so concurrent callers share one load. A load that fails, or whose value
 * `keep` refuses, is forgotten when it settles, and the next caller loads again.
 */
export function loadThrough<K, T>(
  cache: TtlCache<K, Promise<T>>,
  key: K,
  load: () => Promise<T>,
  keep: (value: T) => boolean = () => true,
): Promise<T> {
  const cached = cache.get(key);
  if (cached) return cached;
  const loading = load();
  cache.set(key, loading);
  // Only this load's entry is forgotten, never a newer one stored since.
  const forget = () => {
    if (cache.get(key) === loading) cache.delete(key);
  };
  loading.then((value) => {
    if (!keep(value)) forget();
  }, forget);
  return loading;
}
