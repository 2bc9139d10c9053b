import { randomBytes, randomInt } from 'node:crypto';
import {
  DEFAULT_SEND_RATE_PER_SECOND,
  type AddedPhoneNumber,
  type AddPhoneNumberRequest,
  type PhoneNumberView,
} from '@switchboard/contracts';
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
      slot: 0,
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

/** How many tries an addition makes when another addition takes the same slot at once. */
const SLOT_TRIES = 5;

/**
 * Adds a number to an organization that has its first one: in the next slot, with its own
 * inbound token and credentials (generated unless given), and the first number's provider
 * address and WABA unless given.
 */
export async function addPhoneNumber(
  store: ChannelStore,
  company_id: number,
  request: AddPhoneNumberRequest,
  register: RegisterChannel | undefined,
  publicBaseUrl: string,
  now = new Date(),
): Promise<Channel> {
  for (let attempt = 1; ; attempt++) {
    const numbers = await store.listByCompany(company_id);
    const first = numbers[0];
    if (!first) throw new AppError('not_found', `No channel for organization ${company_id}`);
    const { send_rate_per_second, ...fields } = request;
    const channel: Channel = {
      company_id,
      slot: Math.max(...numbers.map((one) => one.slot)) + 1,
      inbound_token: secret(32),
      provider_base_url: fields.provider_base_url ?? first.provider_base_url,
      api_version: fields.api_version ?? first.api_version,
      phone_number_id: fields.phone_number_id ?? digits(15),
      waba_id: fields.waba_id ?? first.waba_id,
      access_token: fields.access_token ?? 'EAA' + secret(48),
      app_secret: fields.app_secret ?? randomBytes(16).toString('hex'),
      verify_token: fields.verify_token ?? secret(24),
      display_phone_number: fields.display_phone_number ?? '1555' + digits(7),
      verified_name: fields.verified_name ?? first.verified_name,
      ...(send_rate_per_second ? { send_rate_per_second } : {}),
      created_at: now,
      updated_at: now,
    };
    try {
      await store.insertNew(channel);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Another addition took the slot, or the phone_number_id is someone's already.
      const taken = await store.findByPhoneNumberId(channel.phone_number_id);
      if (taken) {
        throw new AppError(
          'conflict',
          `phone_number_id ${channel.phone_number_id} already belongs to a channel`,
        );
      }
      if (attempt >= SLOT_TRIES) throw error;
      continue;
    }
    try {
      await register?.(channel, inboundUrlOf(channel, publicBaseUrl));
    } catch (error) {
      // A number the provider does not accept is not kept: the addition can be tried again.
      await store.removeNumber(company_id, channel.slot);
      if (error instanceof AppError && error.code === 'provider_error') {
        throw new AppError(
          'validation_failed',
          `The provider refused the number: ${error.message}`,
        );
      }
      throw error;
    }
    return channel;
  }
}

export function viewPhoneNumber(channel: Channel, publicBaseUrl: string): PhoneNumberView {
  return {
    phone_number_id: channel.phone_number_id,
    display_phone_number: channel.display_phone_number,
    waba_id: channel.waba_id,
    inbound_url: inboundUrlOf(channel, publicBaseUrl),
    send_rate_per_second: channel.send_rate_per_second ?? DEFAULT_SEND_RATE_PER_SECOND,
    is_default: channel.slot === 0,
  };
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
  addNumber(company_id: number, request: AddPhoneNumberRequest): Promise<AddedPhoneNumber>;
  listNumbers(company_id: number): Promise<PhoneNumberView[]>;
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
    addNumber: async (company_id, request) => {
      const channel = await addPhoneNumber(
        store,
        company_id,
        request,
        deps.register,
        defaults.publicBaseUrl,
      );
      deps.onChanged?.(company_id);
      return {
        ...viewPhoneNumber(channel, defaults.publicBaseUrl),
        verify_token: channel.verify_token,
        app_secret: channel.app_secret,
      };
    },
    listNumbers: async (company_id) => {
      const numbers = await store.listByCompany(company_id);
      if (numbers.length === 0) {
        throw new AppError('not_found', `No channel for organization ${company_id}`);
      }
      return numbers.map((channel) => viewPhoneNumber(channel, defaults.publicBaseUrl));
    },
    inboundChannel: (inboundToken) => inboundChannelFor(store, inboundToken),
  };
}
