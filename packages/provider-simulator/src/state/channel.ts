import { z } from 'zod';

export const QUALITY_RATINGS = ['GREEN', 'YELLOW', 'RED', 'NA', 'UNKNOWN'] as const;
export const MESSAGING_LIMITS = [
  'TIER_50',
  'TIER_250',
  'TIER_1K',
  'TIER_2K',
  'TIER_10K',
  'TIER_100K',
  'TIER_UNLIMITED',
] as const;
export const NAME_STATUSES = [
  'APPROVED',
  'AVAILABLE_WITHOUT_REVIEW',
  'DECLINED',
  'EXPIRED',
  'PENDING_REVIEW',
  'NONE',
] as const;
export const PHONE_STATUSES = [
  'CONNECTED',
  'DISCONNECTED',
  'MIGRATED',
  'PENDING',
  'DELETED',
  'FLAGGED',
  'RESTRICTED',
  'RATE_LIMITED',
  'BANNED',
] as const;
export const ACCOUNT_REVIEW_STATUSES = ['APPROVED', 'PENDING', 'REJECTED', 'DEFERRED'] as const;

const numericId = z.string().regex(/^\d{1,20}$/, 'must be a numeric string');

/** What a test, a demo or messaging registers: one business phone number and where its webhooks go. */
export const ChannelRegistrationSchema = z.object({
  phone_number_id: numericId,
  waba_id: numericId,
  access_token: z.string().min(1),
  app_secret: z.string().min(1),
  webhook_url: z.url({ protocol: /^https?$/ }),
  display_phone_number: z.string().regex(/^\+?[\d\s\-()]{5,24}$/),
  verified_name: z.string().min(1).max(512),
  verify_token: z.string().min(1).optional(),
  quality_rating: z.enum(QUALITY_RATINGS).optional(),
  messaging_limit: z.enum(MESSAGING_LIMITS).optional(),
  name_status: z.enum(NAME_STATUSES).optional(),
  status: z.enum(PHONE_STATUSES).optional(),
  account_review_status: z.enum(ACCOUNT_REVIEW_STATUSES).optional(),
  throughput_per_second: z.number().int().min(0).optional(),
});
export type ChannelRegistration = z.infer<typeof ChannelRegistrationSchema>;

/** The phone number's mutable provider-side state, changed by the control API. */
export interface PhoneNumberState {
  verified_name: string;
  quality_rating: (typeof QUALITY_RATINGS)[number];
  messaging_limit: (typeof MESSAGING_LIMITS)[number];
  name_status: (typeof NAME_STATUSES)[number];
  new_name_status: (typeof NAME_STATUSES)[number];
  status: (typeof PHONE_STATUSES)[number];
  code_verification_status: 'VERIFIED' | 'NOT_VERIFIED' | 'EXPIRED' | 'UNVERIFIED';
  throughput_level: 'STANDARD' | 'HIGH' | 'NOT_APPLICABLE';
}

export interface Channel {
  registration: ChannelRegistration;
  /** Digits of the display number, the business's own WhatsApp id. */
  business_wa_id: string;
  phone: PhoneNumberState;
  /** Given through options or SIM_CHANNELS: survives `POST /sim/reset?channels=true`. */
  preconfigured: boolean;
}

export function createChannel(registration: ChannelRegistration, preconfigured: boolean): Channel {
  return {
    registration,
    business_wa_id: registration.display_phone_number.replace(/\D/g, ''),
    preconfigured,
    phone: {
      verified_name: registration.verified_name,
      quality_rating: registration.quality_rating ?? 'GREEN',
      messaging_limit: registration.messaging_limit ?? 'TIER_2K',
      name_status: registration.name_status ?? 'APPROVED',
      new_name_status: 'NONE',
      status: registration.status ?? 'CONNECTED',
      code_verification_status: 'VERIFIED',
      throughput_level: 'STANDARD',
    },
  };
}

/** A channel as the control API shows it: no access token, no app secret, no verify token. */
export function describeChannel(channel: Channel): Record<string, unknown> {
  const { access_token: _a, app_secret: _s, verify_token: _v, ...visible } = channel.registration;
  return { ...visible, ...channel.phone, preconfigured: channel.preconfigured };
}
