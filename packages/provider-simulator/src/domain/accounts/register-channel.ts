import { verifyCallbackUrl } from '../../outbound/verify-callback-url';
import type { VerificationResult } from '../../outbound/verify-callback-url';
import type { SimulatorContext } from '../../simulator-context';
import type { Channel, ChannelRegistration } from '../../state/channel';
import { createChannel } from '../../state/channel';

export type RegistrationOutcome =
  | { ok: true; channel: Channel; created: boolean; verification?: VerificationResult }
  | { ok: false; reason: 'verification_failed' | 'id_conflict'; message: string };

/**
 * Upserts a channel. With a `verify_token`, Meta's GET handshake runs against the webhook URL
 * first and a failed handshake leaves the channel unsaved, as Meta refuses to save a callback URL
 * it cannot verify. Re-registering keeps the number's provider-side state (quality, tier, name
 * status) unless the registration sets it.
 */
export async function registerChannel(
  ctx: SimulatorContext,
  registration: ChannelRegistration,
  options: { preconfigured?: boolean } = {},
): Promise<RegistrationOutcome> {
  const conflict = idConflict(ctx, registration);
  if (conflict) return { ok: false, reason: 'id_conflict', message: conflict };
  let verification: VerificationResult | undefined;
  if (registration.verify_token !== undefined) {
    verification = await verifyCallbackUrl(
      registration.webhook_url,
      registration.verify_token,
      ctx.options.webhookTimeoutMs,
    );
    if (!verification.ok) {
      return {
        ok: false,
        reason: 'verification_failed',
        message: `The callback URL could not be verified: ${verification.error ?? 'unknown error'}.`,
      };
    }
  }
  return {
    ok: true,
    ...saveChannel(ctx, registration, options.preconfigured ?? false),
    ...(verification && { verification }),
  };
}

/** The synchronous part, also used for channels given in options (no handshake). */
export function saveChannel(
  ctx: SimulatorContext,
  registration: ChannelRegistration,
  preconfigured: boolean,
): { channel: Channel; created: boolean } {
  const existing = ctx.state.channels.get(registration.phone_number_id);
  const fresh = createChannel(registration, existing?.preconfigured ?? preconfigured);
  if (existing) {
    fresh.phone = {
      ...existing.phone,
      verified_name: registration.verified_name,
      ...(registration.quality_rating && { quality_rating: registration.quality_rating }),
      ...(registration.messaging_limit && { messaging_limit: registration.messaging_limit }),
      ...(registration.name_status && { name_status: registration.name_status }),
      ...(registration.status && { status: registration.status }),
    };
  }
  ctx.state.channels.set(registration.phone_number_id, fresh);
  const waba = ctx.state.wabas.get(registration.waba_id);
  if (!waba) {
    ctx.state.wabas.set(registration.waba_id, {
      id: registration.waba_id,
      name: registration.verified_name,
      account_review_status: registration.account_review_status ?? 'APPROVED',
      business_verification_status: 'VERIFIED',
    });
  } else if (registration.account_review_status) {
    waba.account_review_status = registration.account_review_status;
  }
  ctx.state.throughputBuckets.delete(registration.phone_number_id);
  return { channel: fresh, created: !existing };
}

/** Graph ids name one object: a phone number id cannot also be a WABA id, and the reverse. */
function idConflict(ctx: SimulatorContext, registration: ChannelRegistration): string | undefined {
  const { phone_number_id: phoneId, waba_id: wabaId } = registration;
  if (phoneId === wabaId) return 'phone_number_id and waba_id must differ.';
  if (ctx.state.wabas.has(phoneId)) return `${phoneId} is already a WABA id.`;
  if (ctx.state.channels.has(wabaId)) return `${wabaId} is already a phone number id.`;
  return undefined;
}
