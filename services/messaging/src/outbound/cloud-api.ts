import { createHash } from 'node:crypto';
import {
  OutboundError,
  createOutboundClient,
  type Logger,
  type OutboundClient,
} from '@switchboard/service-kit';
import type { Channel } from '../data-access/channel-store';
import {
  classifyProviderResponse,
  unreachableFailure,
  type ProviderFailure,
} from '../domain/sending/classify-provider-error';

export type CloudApiResult<T> = { ok: true; data: T } | { ok: false; failure: ProviderFailure };

export interface SendAccepted {
  wamid: string;
}

export interface MediaUpload {
  buffer: Buffer;
  mimeType: string;
  filename: string;
}

/** One organization's Cloud API account (cloud-api.md §1), behind its own breaker. */
export interface CloudApiClient {
  sendMessage(body: Record<string, unknown>): Promise<CloudApiResult<SendAccepted>>;
  uploadMedia(media: MediaUpload): Promise<CloudApiResult<{ id: string }>>;
  /** `GET /{node}?fields=…` of the phone number or the WABA. */
  getNode(node: string, fields: string[]): Promise<CloudApiResult<Record<string, unknown>>>;
  isCircuitOpen(): boolean;
}

interface GraphSendResponse {
  messages?: { id?: unknown }[];
}

/**
 * The named Cloud API client: axios with a timeout and an opossum breaker per channel, so one
 * organization's failing provider never slows another's. A channel whose address or credentials
 * change gets a fresh client.
 */
export function createCloudApi(options: { logger: Logger; timeoutMs: number }) {
  const clients = new Map<
    number,
    { fingerprint: string; client: CloudApiClient; raw: OutboundClient }
  >();

  function build(channel: Channel): { client: CloudApiClient; raw: OutboundClient } {
    const raw = createOutboundClient({
      name: `cloud-api:${channel.company_id}`,
      baseURL: `${channel.provider_base_url.replace(/\/+$/, '')}/${channel.api_version}`,
      timeoutMs: options.timeoutMs,
      logger: options.logger,
      // The provider failing, not our request: 5xx trip the breaker, 4xx never do.
      countsAsFailure: (status) => status >= 500,
    });
    const headers = { authorization: `Bearer ${channel.access_token}` };

    async function call<T>(
      request: Parameters<OutboundClient['request']>[0],
      accept: (data: unknown) => T | null,
    ): Promise<CloudApiResult<T>> {
      try {
        const response = await raw.request({
          ...request,
          headers: { ...headers, ...request.headers },
        });
        if (response.status >= 200 && response.status < 300) {
          const data = accept(response.data);
          if (data !== null) return { ok: true, data };
          return {
            ok: false,
            failure: {
              message: `The provider answered ${response.status} without the expected fields`,
              code: null,
              httpStatus: response.status,
              retryable: false,
              kind: 'refused',
            },
          };
        }
        return { ok: false, failure: classifyProviderResponse(response.status, response.data) };
      } catch (error) {
        if (error instanceof OutboundError) {
          return { ok: false, failure: unreachableFailure(error.message, error.kind) };
        }
        throw error;
      }
    }

    const client: CloudApiClient = {
      sendMessage: (body) =>
        call(
          {
            method: 'POST',
            url: `/${channel.phone_number_id}/messages`,
            data: body,
            headers: { 'content-type': 'application/json' },
          },
          (data) => {
            const id = (data as GraphSendResponse | undefined)?.messages?.[0]?.id;
            return typeof id === 'string' && id !== '' ? { wamid: id } : null;
          },
        ),
      uploadMedia: (media) => {
        const form = new FormData();
        form.append('messaging_product', 'whatsapp');
        form.append('type', media.mimeType);
        form.append(
          'file',
          new Blob([new Uint8Array(media.buffer)], { type: media.mimeType }),
          media.filename,
        );
        return call(
          { method: 'POST', url: `/${channel.phone_number_id}/media`, data: form },
          (data) => {
            const id = (data as { id?: unknown } | undefined)?.id;
            return typeof id === 'string' && id !== '' ? { id } : null;
          },
        );
      },
      getNode: (node, fields) =>
        call({ method: 'GET', url: `/${node}`, params: { fields: fields.join(',') } }, (data) =>
          typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null,
        ),
      isCircuitOpen: () => raw.isCircuitOpen(),
    };
    return { client, raw };
  }

  return {
    forChannel(channel: Channel): CloudApiClient {
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
      const known = clients.get(channel.company_id);
      if (known?.fingerprint === fingerprint) return known.client;
      known?.raw.shutdown();
      const built = build(channel);
      clients.set(channel.company_id, { fingerprint, ...built });
      return built.client;
    },
    shutdown(): void {
      for (const { raw } of clients.values()) raw.shutdown();
      clients.clear();
    },
  };
}

export type CloudApi = ReturnType<typeof createCloudApi>;
