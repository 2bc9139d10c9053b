import { createHash } from 'node:crypto';
import type { OutboundClient } from '@switchboard/service-kit';
import { accountCalls, type AccountCalls } from './cloud-api-calls/account-calls';
import {
  connectChannel,
  type CallOptions,
  type NumberChannel,
} from './cloud-api-calls/call-provider';
import { messageCalls, type MessageCalls } from './cloud-api-calls/message-calls';
import { templateCalls, type TemplateCalls } from './cloud-api-calls/template-calls';

export type { CloudApiResult } from './cloud-api-calls/call-provider';
export type { MediaUpload, SendAccepted } from './cloud-api-calls/message-calls';
export type { ProviderTemplate, ProviderTemplatePage } from './cloud-api-calls/template-calls';

/**
 * One organization's Cloud API account, behind its own breaker: its messages, its account's
 * fields and its templates (each group of calls a module under `cloud-api-calls/`, over the one
 * HTTP core in `call-provider.ts`).
 */
export interface CloudApiClient extends MessageCalls, AccountCalls, TemplateCalls {
  isCircuitOpen(): boolean;
}

/**
 * The named Cloud API client: one client per channel (each number of an organization), so one
 * organization's failing provider never slows another's. A channel whose address or
 * credentials change gets a fresh client.
 */
export function createCloudApi(options: CallOptions) {
  // One client per number of an organization (`<company_id>:<slot>`).
  const clients = new Map<
    string,
    { fingerprint: string; client: CloudApiClient; raw: OutboundClient }
  >();

  function build(channel: NumberChannel): { client: CloudApiClient; raw: OutboundClient } {
    const connection = connectChannel(channel, options);
    const client: CloudApiClient = {
      ...messageCalls(channel, connection),
      ...accountCalls(connection),
      ...templateCalls(channel, connection),
      isCircuitOpen: () => connection.raw.isCircuitOpen(),
    };
    return { client, raw: connection.raw };
  }

  return {
    forChannel(channel: NumberChannel): CloudApiClient {
      const fingerprint = createHash('sha256')
        .update(
          [
            channel.provider_base_url,
            channel.api_version,
            channel.phone_number_id,
            channel.access_token,
          ].join('\n'),
        )
        .digest('hex');
      const key = `${channel.company_id}:${channel.slot ?? 0}`;
      const known = clients.get(key);
      if (known?.fingerprint === fingerprint) return known.client;
      known?.raw.shutdown();
      const built = build(channel);
      clients.set(key, { fingerprint, ...built });
      return built.client;
    },
    shutdown(): void {
      for (const { raw } of clients.values()) raw.shutdown();
      clients.clear();
    },
  };
}

export type CloudApi = ReturnType<typeof createCloudApi>;
