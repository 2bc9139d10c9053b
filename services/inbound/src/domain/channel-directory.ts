import type { InboundChannel } from '@switchboard/contracts';
import { AppError, createTtlCache, type Logger } from '@switchboard/service-kit';
import type { ChannelCopyStore } from '../data-access/channel-copy-store';
import type { MessagingChannels } from '../outbound/messaging-channels';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export interface ChannelDirectoryOptions {
  messaging: MessagingChannels;
  ttlMs: number;
  copies: ChannelCopyStore;
  logger: Logger;
}

/**
 * Finds the channel an inbound token belongs to: from memory while fresh, else from messaging,
 * else — when messaging cannot answer — from the copy kept of its last answer.
 */
export function createChannelDirectory(options: ChannelDirectoryOptions) {
  const memory = createTtlCache<string, InboundChannel>({
    ttlMs: options.ttlMs,
    maxEntries: 10_000,
  });

  return {
    async find(token: string, now = new Date()): Promise<InboundChannel | null> {
      if (!TOKEN_PATTERN.test(token)) return null;
      const remembered = memory.get(token, now.getTime());
      if (remembered) return remembered;

      let channel: InboundChannel | null;
      try {
        channel = await options.messaging.byInboundToken(token);
      } catch (error) {
        const copy = await options.copies.find(token);
        if (copy) {
          options.logger.warn({ err: error }, 'messaging unavailable; using the kept channel copy');
          return copy;
        }
        throw new AppError('dependency_unavailable', 'Channel lookup is unavailable', {
          cause: error,
        });
      }
      if (!channel) {
        memory.delete(token);
        await options.copies.remove(token);
        return null;
      }
      memory.set(token, channel, now.getTime());
      await options.copies.save(token, channel, now).catch((error: unknown) => {
        options.logger.warn({ err: error }, 'could not keep a copy of the channel');
      });
      return channel;
    },
  };
}

export type ChannelDirectory = ReturnType<typeof createChannelDirectory>;
