import { createTtlCache } from '@switchboard/service-kit';
import type { Channel, ChannelStore } from '../data-access/channel-store';

/**
 * Channels by organization, remembered for a few seconds: every send needs its channel, and the
 * channels collection is read with a scan on the local document database. An admin update made
 * through this process forgets the entry at once; other replicas see it within the TTL.
 */
export function createChannelDirectory(store: ChannelStore, ttlMs: number) {
  const remembered = createTtlCache<number, Channel>({ ttlMs, maxEntries: 10_000 });
  return {
    async find(company_id: number): Promise<Channel | null> {
      const hit = remembered.get(company_id);
      if (hit) return hit;
      const channel = await store.findByCompany(company_id);
      if (channel) remembered.set(company_id, channel);
      return channel;
    },
    /** Drops the remembered channel after a change. */
    forget(company_id: number): void {
      remembered.delete(company_id);
    },
  };
}

export type ChannelDirectory = ReturnType<typeof createChannelDirectory>;
