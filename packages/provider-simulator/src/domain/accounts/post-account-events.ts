import { z } from 'zod';
import type { SimulatorContext } from '../../simulator-context';
import type { Channel } from '../../state/channel';
import { ACCOUNT_REVIEW_STATUSES, MESSAGING_LIMITS, QUALITY_RATINGS } from '../../state/channel';
import type { WebhookRecord } from '../../state/records';
import { postManagementWebhook } from '../webhooks/post-management-webhook';

/**
 * `POST /sim/account-update`: `event` (+ any extras such as `ban_info`, `violation_info`,
 * `restriction_info`) posts `account_update`; `decision` posts `account_review_update` and sets
 * the WABA's `account_review_status`. Either `waba_id` or `phone_number_id` names the account.
 */
export const AccountUpdateSchema = z
  .object({
    waba_id: z.string().min(1).optional(),
    phone_number_id: z.string().min(1).optional(),
    event: z.string().min(1).optional(),
    decision: z.enum(ACCOUNT_REVIEW_STATUSES).optional(),
  })
  .loose()
  .refine((body) => body.waba_id !== undefined || body.phone_number_id !== undefined, {
    message: 'waba_id or phone_number_id is required',
  })
  .refine((body) => body.event !== undefined || body.decision !== undefined, {
    message: 'event (account_update) or decision (account_review_update) is required',
  });
export type AccountUpdate = z.infer<typeof AccountUpdateSchema>;

export async function postAccountUpdate(
  ctx: SimulatorContext,
  wabaId: string,
  input: AccountUpdate,
): Promise<WebhookRecord[]> {
  const { waba_id: _w, phone_number_id: _p, event, decision, ...extras } = input;
  const posted: WebhookRecord[] = [];
  if (event !== undefined) {
    posted.push(
      ...(await postManagementWebhook(ctx, wabaId, 'account_update', { event, ...extras })),
    );
  }
  if (decision !== undefined) {
    const waba = ctx.state.wabas.get(wabaId);
    if (waba) waba.account_review_status = decision;
    posted.push(
      ...(await postManagementWebhook(ctx, wabaId, 'account_review_update', { decision })),
    );
  }
  return posted;
}

/** `POST /sim/name-update` (reference §3.7). */
export const NameUpdateSchema = z.object({
  phone_number_id: z.string().min(1),
  decision: z.enum(['APPROVED', 'DEFERRED', 'PENDING', 'REJECTED']),
  requested_verified_name: z.string().min(1).optional(),
  rejection_reason: z
    .enum([
      'NAME_EMPLOYEE_ISSUE',
      'NAME_ENDCLIENT_NOTRELATED',
      'NAME_FORMAT_UNACCEPTABLE',
      'NAME_INDIVIDUAL_ISSUE',
      'NAME_NOT_CONSISTENT',
      'UNKNOWN',
    ])
    .optional(),
});
export type NameUpdate = z.infer<typeof NameUpdateSchema>;

const NAME_STATUS_AFTER = {
  APPROVED: 'APPROVED',
  REJECTED: 'DECLINED',
  PENDING: 'PENDING_REVIEW',
  DEFERRED: 'PENDING_REVIEW',
} as const;

/** The decision moves `name_status`; an approval also makes the requested name the verified one. */
export function postNameUpdate(
  ctx: SimulatorContext,
  channel: Channel,
  input: NameUpdate,
): Promise<WebhookRecord[]> {
  const requested = input.requested_verified_name ?? channel.phone.verified_name;
  channel.phone.name_status = NAME_STATUS_AFTER[input.decision];
  if (input.decision === 'APPROVED') channel.phone.verified_name = requested;
  return postManagementWebhook(
    ctx,
    channel.registration.waba_id,
    'phone_number_name_update',
    {
      display_phone_number: channel.business_wa_id,
      decision: input.decision,
      requested_verified_name: requested,
      rejection_reason:
        input.decision === 'REJECTED' ? (input.rejection_reason ?? 'UNKNOWN') : null,
    },
    channel.registration.phone_number_id,
  );
}

/** `POST /sim/quality` (reference §3.9). */
export const QualityUpdateSchema = z
  .object({
    phone_number_id: z.string().min(1),
    quality_rating: z.enum(QUALITY_RATINGS).optional(),
    messaging_limit: z.enum(MESSAGING_LIMITS).optional(),
    event: z
      .enum(['ONBOARDING', 'THROUGHPUT_UPGRADE', 'FLAGGED', 'UNFLAGGED', 'UPGRADE', 'DOWNGRADE'])
      .optional(),
  })
  .refine(
    (body) => body.quality_rating ?? body.messaging_limit ?? body.event,
    'quality_rating, messaging_limit or event is required',
  );
export type QualityUpdate = z.infer<typeof QualityUpdateSchema>;

/**
 * Changes the number's quality rating and/or messaging limit and posts
 * `phone_number_quality_update`. Without `event`: UPGRADE/DOWNGRADE when the limit moves,
 * FLAGGED/UNFLAGGED when the rating goes to or from RED, else ONBOARDING.
 */
export function postQualityUpdate(
  ctx: SimulatorContext,
  channel: Channel,
  input: QualityUpdate,
): Promise<WebhookRecord[]> {
  const before = { ...channel.phone };
  if (input.quality_rating) channel.phone.quality_rating = input.quality_rating;
  if (input.messaging_limit) channel.phone.messaging_limit = input.messaging_limit;
  if (input.event === 'THROUGHPUT_UPGRADE') channel.phone.throughput_level = 'HIGH';
  const rank = (tier: string): number => (MESSAGING_LIMITS as readonly string[]).indexOf(tier);
  const limitMove = rank(channel.phone.messaging_limit) - rank(before.messaging_limit);
  const event =
    input.event ??
    (limitMove > 0
      ? 'UPGRADE'
      : limitMove < 0
        ? 'DOWNGRADE'
        : channel.phone.quality_rating === 'RED' && before.quality_rating !== 'RED'
          ? 'FLAGGED'
          : before.quality_rating === 'RED' && channel.phone.quality_rating !== 'RED'
            ? 'UNFLAGGED'
            : 'ONBOARDING');
  return postManagementWebhook(
    ctx,
    channel.registration.waba_id,
    'phone_number_quality_update',
    {
      display_phone_number: channel.business_wa_id,
      event,
      old_limit: before.messaging_limit,
      current_limit: channel.phone.messaging_limit,
      max_daily_conversations_per_business: channel.phone.messaging_limit,
    },
    channel.registration.phone_number_id,
  );
}
