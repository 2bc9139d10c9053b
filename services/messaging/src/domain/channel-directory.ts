import type { Channel, ChannelStore } from '../data-access/channel-store';

/**
 * Channels by organization, remembered for a few seconds: every send needs its channel, and the
 * channels collection is read with a scan on the local document database. An admin update made
 * through this process forgets the entry at once; other replicas see it within the TTL.
 */
export function createChannelDirectory(store: ChannelStore, ttlMs: number) {
  const remembered = new Map<number, { channel: Channel; expiresAt: number }>();
  return {
    async find(company_id: number): Promise<Channel | null> {
      const hit = remembered.get(company_id);
      if (hit && hit.expiresAt > Date.now()) return hit.channel;
      const channel = await store.findByCompany(company_id);
      if (channel && ttlMs > 0) {
        remembered.set(company_id, { channel, expiresAt: Date.now() + ttlMs });
      } else {
        remembered.delete(company_id);
      }
      return channel;
    },
    /** Drops the remembered channel after a change. */
    forget(company_id: number): void {
      remembered.delete(company_id);
    },
  };
}

export type ChannelDirectory = ReturnType<typeof createChannelDirectory>;
