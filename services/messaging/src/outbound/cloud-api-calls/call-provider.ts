import {
  OutboundError,
  createOutboundClient,
  type Logger,
  type OutboundClient,
} from '@switchboard/service-kit';
import {
  busyChannelFailure,
  classifyProviderResponse,
  unreachableFailure,
  type ProviderFailure,
} from '../provider-failure';

export type CloudApiResult<T> = { ok: true; data: T } | { ok: false; failure: ProviderFailure };

/** The fields of an organization's channel a provider client is built from. */
export interface Channel {
  company_id: number;
  provider_base_url: string;
  api_version: string;
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}

/**
 * A channel is one of the organization's numbers; its place among them (`slot`, 0 for the first)
 * keeps its client apart from the others'. Absent: the first.
 */
export type NumberChannel = Channel & { slot?: number };

export interface CallOptions {
  logger: Logger;
  timeoutMs: number;
  /** Calls one channel may have waiting on its provider at once; more are throttled here. */
  maxInFlight: number;
}

/** An axios config, or a function making the exchange (the hot path's). */
export type ProviderRequest =
  Parameters<OutboundClient['request']>[0] | (() => Promise<{ status: number; data: unknown }>);

/**
 * One call to the provider: its answer when 2xx and `accept` finds the expected fields in it,
 * else the failure, classified (refused, throttled, unavailable).
 */
export type CallProvider = <T>(
  request: ProviderRequest,
  accept: (data: unknown) => T | null,
) => Promise<CloudApiResult<T>>;

/** A channel's connection to the provider: its HTTP client, credentials and `call`. */
export interface ProviderConnection {
  raw: OutboundClient;
  headers: { authorization: string };
  call: CallProvider;
}

/**
 * Connects one channel: axios with a timeout and an opossum breaker of its own, so one
 * organization's failing provider never slows another's, and a bound on its calls in flight.
 */
export function connectChannel(channel: NumberChannel, options: CallOptions): ProviderConnection {
  const slot = channel.slot ?? 0;
  const raw = createOutboundClient({
    name:
      slot === 0 ? `cloud-api:${channel.company_id}` : `cloud-api:${channel.company_id}:${slot}`,
    baseURL: `${channel.provider_base_url.replace(/\/+$/, '')}/${channel.api_version}`,
    timeoutMs: options.timeoutMs,
    logger: options.logger,
    // One metrics series for every organization's channel, not one per organization.
    metricsLabel: 'cloud-api',
    outsideRemote: true,
    // The provider failing, not our request: 5xx trip the breaker, 4xx never do.
    countsAsFailure: (status) => status >= 500,
  });
  const headers = { authorization: `Bearer ${channel.access_token}` };
  // One organization's hanging provider holds at most this many calls (sockets, memory), and
  // its further sends are throttled at once (429 after the send's retries) instead of piling up.
  let inFlight = 0;

  async function call<T>(
    request: ProviderRequest,
    accept: (data: unknown) => T | null,
  ): Promise<CloudApiResult<T>> {
    if (inFlight >= options.maxInFlight) {
      return { ok: false, failure: busyChannelFailure(options.maxInFlight) };
    }
    inFlight++;
    try {
      const response =
        typeof request === 'function'
          ? await request()
          : await raw.request({ ...request, headers: { ...headers, ...request.headers } });
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
    } finally {
      inFlight--;
    }
  }

  return { raw, headers, call };
}
