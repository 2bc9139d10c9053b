import type { OutboundClient } from './outbound-client';

/** What a keyed client must offer: its breaker's state, and a way to let go of what it holds. */
export interface KeyedClient {
  isCircuitOpen(): boolean;
  shutdown(): void;
}

/**
 * One outbound client (and so one breaker) per key — a customer's endpoint, an organization's AI
 * endpoint — made on first use; clients unused for `idleEvictMs` are dropped unless their breaker
 * is open, so a service calling many endpoints keeps only the live ones. The clients are the
 * kit's axios outbound clients by default, or anything with a breaker and a shutdown.
 */
export function createKeyedOutboundClients<C extends KeyedClient = OutboundClient>(options: {
  create: (key: string) => C;
  idleEvictMs?: number;
}) {
  const clients = new Map<string, { client: C; lastUsed: number }>();
  const idleEvictMs = options.idleEvictMs ?? 10 * 60_000;
  const sweeper = setInterval(() => {
    const cutoff = Date.now() - idleEvictMs;
    for (const [key, entry] of clients) {
      if (entry.lastUsed < cutoff && !entry.client.isCircuitOpen()) {
        entry.client.shutdown();
        clients.delete(key);
      }
    }
  }, 60_000);
  sweeper.unref();

  return {
    get(key: string): C {
      let entry = clients.get(key);
      if (!entry) {
        entry = { client: options.create(key), lastUsed: Date.now() };
        clients.set(key, entry);
      }
      entry.lastUsed = Date.now();
      return entry.client;
    },
    /** Whether calls for this key are paused by an open breaker. */
    isCircuitOpen: (key: string): boolean => clients.get(key)?.client.isCircuitOpen() ?? false,
    /** Drops the key's client now (its endpoint was deleted). */
    forget(key: string): void {
      clients.get(key)?.client.shutdown();
      clients.delete(key);
    },
    shutdown(): void {
      clearInterval(sweeper);
      for (const entry of clients.values()) entry.client.shutdown();
      clients.clear();
    },
  };
}
