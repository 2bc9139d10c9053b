import {
  OutboundError,
  createKeyedOutboundClients,
  createOutboundClient,
  type Logger,
} from '@switchboard/service-kit';

/** The fields of an organization's channel a media call needs. */
interface Channel {
  company_id: number;
  provider_base_url: string;
  api_version: string;
  phone_number_id: string;
  access_token: string;
}

/** What `GET /{media-id}` says of a file (url, mime_type, sha256, file_size, id). */
export interface ProviderMediaInfo {
  url: string;
  mime_type: string | null;
  sha256: string | null;
  file_size: number | null;
}

/**
 * How one call ended: `ok`, or a failure that may pass (`retryable`: no answer, 5xx, 429, a
 * download link that expired) or will not (the provider does not know the file), or a file over
 * the size limit, noticed while it was arriving.
 */
export type MediaCallResult<T> =
  | { ok: true; data: T }
  | { ok: false; retryable: boolean; error: string }
  | { ok: false; tooLarge: true };

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

const failure = (status: number, what: string) => ({
  ok: false as const,
  // An expired download link answers 404 (a fresh lookup gives a new one); 5xx and 429 pass.
  retryable: status >= 500 || status === 429 || (what === 'download' && status === 404),
  error: `The provider answered ${status} to the media ${what}`,
});

/**
 * The named client for fetching inbound files from the provider: the channel's token on both
 * calls, a timeout over the whole exchange, and a breaker per organization (5xx and no answer
 * trip it), apart from the sends' breaker so that slow downloads never pause sending.
 */
export function createProviderMedia(options: { logger: Logger; timeoutMs: number }) {
  const clients = createKeyedOutboundClients({
    create: (key) =>
      createOutboundClient({
        name: `provider-media:${key}`,
        metricsLabel: 'provider-media',
        timeoutMs: options.timeoutMs,
        logger: options.logger,
        outsideRemote: true,
        countsAsFailure: (status) => status >= 500,
      }),
  });

  async function call<T>(
    channel: Channel,
    what: 'lookup' | 'download',
    config: Parameters<ReturnType<typeof createOutboundClient>['request']>[0],
    accept: (data: unknown, headers: Record<string, unknown>) => T | null,
  ): Promise<MediaCallResult<T>> {
    const client = clients.get(String(channel.company_id));
    try {
      const response = await client.request({
        ...config,
        headers: { authorization: `Bearer ${channel.access_token}` },
        // Bounds the whole exchange, a body that trickles in included (axios' own timeout does not).
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (response.status < 200 || response.status >= 300) return failure(response.status, what);
      const data = accept(response.data, response.headers as Record<string, unknown>);
      if (data === null) {
        return { ok: false, retryable: false, error: `The media ${what} answer was not usable` };
      }
      return { ok: true, data };
    } catch (error) {
      const cause = (error as { cause?: { message?: unknown } }).cause;
      if (String(cause?.message ?? '').includes('maxContentLength')) {
        return { ok: false, tooLarge: true };
      }
      if (error instanceof OutboundError) {
        return { ok: false, retryable: true, error: error.message };
      }
      throw error;
    }
  }

  return {
    /** `GET /{media-id}` with the channel's token → the download URL and what the file is. */
    lookup(channel: Channel, mediaId: string): Promise<MediaCallResult<ProviderMediaInfo>> {
      const base = `${channel.provider_base_url.replace(/\/+$/, '')}/${channel.api_version}`;
      return call(
        channel,
        'lookup',
        {
          method: 'GET',
          url: `${base}/${encodeURIComponent(mediaId)}`,
          params: { phone_number_id: channel.phone_number_id },
        },
        (data) => {
          const body = (data ?? {}) as Record<string, unknown>;
          const url = str(body.url);
          if (!url || !/^https?:\/\//.test(url)) return null;
          const size = Number(body.file_size);
          return {
            url,
            mime_type: str(body.mime_type),
            sha256: str(body.sha256),
            file_size: Number.isSafeInteger(size) && size >= 0 ? size : null,
          };
        },
      );
    },

    /** The bytes behind a download URL, with the channel's token; at most `maxBytes` of them. */
    download(channel: Channel, url: string, maxBytes: number): Promise<MediaCallResult<Buffer>> {
      return call(
        channel,
        'download',
        { method: 'GET', url, responseType: 'arraybuffer', maxContentLength: maxBytes },
        (data) =>
          Buffer.isBuffer(data)
            ? data
            : data instanceof ArrayBuffer
              ? Buffer.from(new Uint8Array(data))
              : null,
      );
    },

    shutdown: () => clients.shutdown(),
  };
}

export type ProviderMedia = ReturnType<typeof createProviderMedia>;
