import { InboundChannelResponseSchema, type InboundChannel } from '@switchboard/contracts';
import { createInternalClient, type Logger } from '@switchboard/service-kit';

export interface MessagingChannelsOptions {
  messagingUrl: string;
  internalSecret: string;
  logger: Logger;
}

/** Messaging's answer to "whose channel has this inbound token?": the channel, or null if none. */
export interface MessagingChannels {
  byInboundToken(token: string): Promise<InboundChannel | null>;
  shutdown(): void;
}

export function createMessagingChannels(options: MessagingChannelsOptions): MessagingChannels {
  const client = createInternalClient({
    service: 'messaging',
    baseURL: options.messagingUrl,
    internalSecret: options.internalSecret,
    timeoutMs: 3_000,
    logger: options.logger,
  });
  return {
    async byInboundToken(token) {
      const response = await client.get(`/internal/channels/by-inbound-token/${token}`);
      if (response.status === 404) return null;
      if (response.status !== 200) throw new Error(`messaging answered ${response.status}`);
      return InboundChannelResponseSchema.parse(response.data).channel;
    },
    shutdown: () => client.shutdown(),
  };
}
