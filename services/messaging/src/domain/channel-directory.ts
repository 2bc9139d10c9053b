import { AppError, createTtlCache } from '@switchboard/service-kit';
import type { Channel, ChannelStore } from '../data-access/channel-store';

/**
 * Each organization's numbers (its channels), remembered for a few seconds: every send needs its
 * channel, and the channels collection is read with a scan on the local document database. An
 * admin change made through this process forgets the entry at once; other replicas see it
 * within the TTL.
 */
export function createChannelDirectory(store: ChannelStore, ttlMs: number) {
  const remembered = createTtlCache<number, Channel[]>({ ttlMs, maxEntries: 10_000 });
  async function list(company_id: number): Promise<Channel[]> {
    const hit = remembered.get(company_id);
    if (hit) return hit;
    const channels = await store.listByCompany(company_id);
    if (channels.length > 0) remembered.set(company_id, channels);
    return channels;
  }
  /** The organization's first number: the default of every send. */
  async function find(company_id: number): Promise<Channel | null> {
    return (await list(company_id)).find((channel) => channel.slot === 0) ?? null;
  }
  return {
    list,
    find,
    /** One of the organization's numbers by its phone_number_id; null when it has none by that id. */
    async findNumber(company_id: number, phone_number_id: string): Promise<Channel | null> {
      return (
        (await list(company_id)).find((channel) => channel.phone_number_id === phone_number_id) ??
        null
      );
    },
    /**
     * The number a send names, or the default: a name that is not one of the organization's
     * numbers (another organization's included) is refused.
     */
    async sender(company_id: number, phone_number_id: string | undefined): Promise<Channel> {
      if (phone_number_id === undefined) {
        const first = await find(company_id);
        if (!first) {
          throw new AppError(
            'dependency_unavailable',
            'This organization has no messaging channel',
          );
        }
        return first;
      }
      const chosen = await this.findNumber(company_id, phone_number_id);
      if (!chosen) {
        throw new AppError(
          'validation_failed',
          `from_phone_number_id: ${phone_number_id} is not one of this organization's phone numbers`,
        );
      }
      return chosen;
    },
    /** Drops the remembered numbers after a change. */
    forget(company_id: number): void {
      remembered.delete(company_id);
    },
  };
}

export type ChannelDirectory = ReturnType<typeof createChannelDirectory>;
