import type { Channel } from '../../state/channel';
import type { WabaState } from '../../state/records';
import { selectFields } from '../select-fields';

/** Default fields of `GET /{phone_number_id}` (reference §1.4). */
const PHONE_DEFAULTS = ['verified_name', 'display_phone_number', 'quality_rating', 'id'];

/** The deprecated `messaging_limit_tier` spoke of 1K where the current tiers say 2K. */
const LEGACY_TIER: Record<string, string> = { TIER_2K: 'TIER_1K' };

export function describePhoneNumber(
  channel: Channel,
  fields: string | undefined,
  throughputPerSecond: number,
): Record<string, unknown> {
  const { registration, phone } = channel;
  const available: Record<string, unknown> = {
    id: registration.phone_number_id,
    display_phone_number: registration.display_phone_number,
    verified_name: phone.verified_name,
    quality_rating: phone.quality_rating,
    name_status: phone.name_status,
    new_name_status: phone.new_name_status,
    code_verification_status: phone.code_verification_status,
    status: phone.status,
    throughput: { level: throughputPerSecond > 80 ? 'HIGH' : phone.throughput_level },
    platform_type: 'CLOUD_API',
    whatsapp_business_manager_messaging_limit: phone.messaging_limit,
    messaging_limit_tier: LEGACY_TIER[phone.messaging_limit] ?? phone.messaging_limit,
    webhook_configuration: { application: registration.webhook_url },
    is_official_business_account: false,
    account_mode: 'LIVE',
    is_pin_enabled: false,
    quality_score: { score: phone.quality_rating },
  };
  return selectFields(available, fields, PHONE_DEFAULTS, 'WhatsAppBusinessPhoneNumber');
}

const WABA_DEFAULTS = ['id', 'name', 'timezone_id', 'message_template_namespace'];

export function describeWaba(waba: WabaState, fields: string | undefined): Record<string, unknown> {
  const available: Record<string, unknown> = {
    id: waba.id,
    name: waba.name,
    account_review_status: waba.account_review_status,
    business_verification_status: waba.business_verification_status,
    currency: 'USD',
    timezone_id: '1',
    message_template_namespace: `sim_${waba.id}`,
    ownership_type: 'SELF',
    country: 'US',
    status: 'ACTIVE',
  };
  return selectFields(available, fields, WABA_DEFAULTS, 'WhatsAppBusinessAccount');
}
