import { randomBytes, randomInt } from 'node:crypto';
import type {
  ChannelSummary,
  ChannelView,
  InboundChannel,
  ProvisionChannelRequest,
  UpdateChannelRequest,
} from '@switchboard/contracts';
import { AppError, isDuplicateKeyError } from '@switchboard/service-kit';
import type { Channel, ChannelStore } from '../data-access/channel-store';

export interface ChannelDefaults {
  publicBaseUrl: string;
  providerBaseUrl: string;
  apiVersion: string;
}

/** Tells the provider (the simulator, when it is the default) about a new channel. */
export type RegisterChannel = (channel: Channel, inboundUrl: string) => Promise<void>;

const secret = (bytes: number) => randomBytes(bytes).toString('base64url');
const digits = (count: number) =>
  Array.from({ length: count }, (_, i) => randomInt(i === 0 ? 1 : 0, 10)).join('');

export function inboundUrlOf(channel: Channel, publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/webhook/svc/receive/${channel.inbound_token}`;
}

/**
 * Creates the organization's channel once (a repeated call returns the same one), pointing at
 * the default provider with generated credentials until an admin sets real ones.
 */
export async function provisionChannel(
  store: ChannelStore,
  request: ProvisionChannelRequest,
  defaults: ChannelDefaults,
  register: RegisterChannel | undefined,
  now = new Date(),
): Promise<Channel> {
  const existing = await store.findByCompany(request.company_id);
  const channel =
    existing ??
    (await store.insertOnce({
      company_id: request.company_id,
      inbound_token: secret(32),
      provider_base_url: defaults.providerBaseUrl,
      api_version: defaults.apiVersion,
      phone_number_id: digits(15),
      waba_id: digits(15),
      access_token: 'EAA' + secret(48),
      app_secret: randomBytes(16).toString('hex'),
      verify_token: secret(24),
      display_phone_number: '1555' + digits(7),
      verified_name: request.name,
      created_at: now,
      updated_at: now,
    }));
  await register?.(channel, inboundUrlOf(channel, defaults.publicBaseUrl));
  return channel;
}

export async function updateChannel(
  store: ChannelStore,
  company_id: number,
  changes: UpdateChannelRequest,
  now = new Date(),
): Promise<Channel> {
  try {
    const updated = await store.update(company_id, changes, now);
    if (!updated) throw new AppError('not_found', `No channel for organization ${company_id}`);
    return updated;
  } catch (error) {
    // The only unique field an update can set; FerretDB reports an update into it as code 1, not 11000.
    if (isDuplicateKeyError(error)) {
      throw new AppError(
        'conflict',
        `phone_number_id ${changes.phone_number_id ?? ''} belongs to another organization's channel`,
      );
    }
    throw error;
  }
}

export function summarizeChannel(channel: Channel, publicBaseUrl: string): ChannelSummary {
  return {
    inbound_url: inboundUrlOf(channel, publicBaseUrl),
    verify_token: channel.verify_token,
    app_secret: channel.app_secret,
    phone_number_id: channel.phone_number_id,
    display_phone_number: channel.display_phone_number,
  };
}

export function viewChannel(channel: Channel, publicBaseUrl: string): ChannelView {
  return {
    company_id: channel.company_id,
    provider_base_url: channel.provider_base_url,
    api_version: channel.api_version,
    phone_number_id: channel.phone_number_id,
    waba_id: channel.waba_id,
    display_phone_number: channel.display_phone_number,
    inbound_url: inboundUrlOf(channel, publicBaseUrl),
  };
}

/** What the inbound service needs to check and route a provider webhook for a channel. */
export async function inboundChannelFor(
  store: ChannelStore,
  inboundToken: string,
): Promise<InboundChannel> {
  const channel = await store.findByInboundToken(inboundToken);
  if (!channel) throw new AppError('not_found', 'Unknown channel');
  return {
    company_id: channel.company_id,
    app_secret: channel.app_secret,
    verify_token: channel.verify_token,
    phone_number_id: channel.phone_number_id,
    waba_id: channel.waba_id,
  };
}

export interface Channels {
  provision(request: ProvisionChannelRequest): Promise<ChannelSummary>;
  update(company_id: number, changes: UpdateChannelRequest): Promise<ChannelView>;
  inboundChannel(inboundToken: string): Promise<InboundChannel>;
}

/** The channel operations the internal API offers, bound to their store and defaults. */
export function createChannels(deps: {
  store: ChannelStore;
  defaults: ChannelDefaults;
  register: RegisterChannel | undefined;
  /** Told when a channel changed, so that cached copies are dropped. */
  onChanged?: (company_id: number) => void;
}): Channels {
  const { store, defaults } = deps;
  return {
    provision: async (request) =>
      summarizeChannel(
        await provisionChannel(store, request, defaults, deps.register),
        defaults.publicBaseUrl,
      ),
    update: async (company_id, changes) => {
      const channel = await updateChannel(store, company_id, changes);
      deps.onChanged?.(company_id);
      return viewChannel(channel, defaults.publicBaseUrl);
    },
    inboundChannel: (inboundToken) => inboundChannelFor(store, inboundToken),
  };
}
