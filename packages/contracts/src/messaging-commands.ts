import { z } from 'zod';
import { successResponse } from './envelope';
import { PhoneSchema } from './http/contacts-api';
import {
  MediaTypeSchema,
  SendMediaRequestSchema,
  SendMessageFieldsSchema,
  SendTemplateRequestSchema,
} from './http/messaging-api';
import { PlanSchema } from './plans';

/** What a `messaging.send` command sends: the same content the REST operations take. */
export const SendContentSchema = z.discriminatedUnion('type', [
  SendMessageFieldsSchema.omit({ phone: true }).extend({ type: z.literal('text') }),
  SendTemplateRequestSchema.omit({ phone: true, reply_to: true }).extend({
    type: z.literal('template'),
  }),
  SendMediaRequestSchema.omit({ phone: true, type: true, url: true, reply_to: true }).extend({
    type: z.literal('media'),
    media_type: MediaTypeSchema,
    url: z.url({ protocol: /^https?$/ }),
  }),
]);
export type SendContent = z.infer<typeof SendContentSchema>;
export type SendContentInput = z.input<typeof SendContentSchema>;

const MonthSchema = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month like 2026-11');

/**
 * Names the place one message will take (an automated answer's: `automation:<message id>`).
 * Names starting `message:` are messaging's own.
 */
export const HoldIdSchema = z.string().regex(/^(?!message:)[A-Za-z0-9:_-]{1,100}$/, {
  error: 'must be 1 to 100 letters, digits, :, _ or -, not starting with message:',
});

/**
 * A `messaging.send` command on `svc.commands` (ARCHITECTURE §6, §9), from campaigns and bots.
 * The broker message id should be the idempotency key; messaging sends once per
 * `(company_id, idempotency_key)` however often the command arrives.
 */
export const MessagingSendCommandSchema = z
  .object({
    company_id: z.number().int().positive(),
    /** The organization's plan as the gateway stated it: messaging owns no organizations. */
    plan: PlanSchema,
    plan_started_at: z.iso.datetime({ offset: true }),
    /**
     * The recipient: `phone` (resolved, created when new, within the contact quota) or
     * `contact_id` (looked up). With both, the producer already holds the contact (a campaign
     * reads its audience from contacts) and messaging asks contacts nothing.
     */
    phone: PhoneSchema.optional(),
    contact_id: z.number().int().positive().optional(),
    /** With `phone` and `contact_id`: the contact's name, for the conversation. */
    contact_name: z.string().max(256).optional(),
    content: SendContentSchema,
    idempotency_key: z.string().min(1).max(200),
    campaign_id: z.number().int().positive().optional(),
    /**
     * The producer already reserved this message's quota place (`POST
     * /internal/message-quota/reserve`) in `quota_month`; messaging does not reserve again, and
     * gives the place back when the provider refuses the message.
     */
    quota_reserved: z.boolean().default(false),
    quota_month: MonthSchema.optional(),
    /**
     * The producer holds this message's place under this hold name (`POST
     * /internal/message-quota/hold`), in `quota_month` (this month when absent): messaging takes
     * the place over when it stores the message, and reserves one itself when the hold is gone
     * (given back because no command took it over in time).
     */
    quota_hold: HoldIdSchema.optional(),
    /**
     * A message sent to the same recipient once this one is accepted, so it always arrives second
     * (a chained automated reply). Its quota place is messaging's to take; a full quota, or a
     * first message that was not sent, leaves it unsent.
     */
    then: z.object({ content: SendContentSchema }).optional(),
  })
  .refine((command) => command.phone !== undefined || command.contact_id !== undefined, {
    message: 'phone or contact_id is required',
    path: ['phone'],
  })
  .refine((command) => !command.quota_reserved || command.quota_month !== undefined, {
    message: 'quota_month is required with quota_reserved',
    path: ['quota_month'],
  });
export type MessagingSendCommand = z.infer<typeof MessagingSendCommandSchema>;
export type MessagingSendCommandInput = z.input<typeof MessagingSendCommandSchema>;

/** Messaging's internal quota API: a campaign reserves its whole audience at once (ARCHITECTURE §5). */
export const MESSAGING_INTERNAL_PATHS = {
  reserveQuota: '/internal/message-quota/reserve',
  releaseQuota: '/internal/message-quota/release',
  holdQuota: '/internal/message-quota/hold',
  /** A flow's or the AI bot's hand-over: the conversation waits for a person (NeedsHumanRequest). */
  needsHuman: '/internal/conversations/needs-human',
} as const;

/**
 * Names one reservation (`campaign:<id>`), so that asking again holds nothing more and it can be
 * given back by name: a producer that died before recording the answer undoes it without knowing
 * whether it was made.
 */
const ReservationIdSchema = z.string().regex(/^[A-Za-z0-9:_-]{1,100}$/, {
  error: 'must be 1 to 100 letters, digits, :, _ or -',
});

export const ReserveMessageQuotaRequestSchema = z.object({
  company_id: z.number().int().positive(),
  plan: PlanSchema,
  plan_started_at: z.iso.datetime({ offset: true }),
  count: z.number().int().positive().max(1_000_000),
  reservation_id: ReservationIdSchema.optional(),
});
export type ReserveMessageQuotaRequest = z.infer<typeof ReserveMessageQuotaRequestSchema>;

/** 200 when all `count` places are held; otherwise the 429 quota error and nothing held. */
export const ReserveMessageQuotaResponseSchema = successResponse({
  month: MonthSchema,
  reserved: z.number().int().positive(),
});
export type ReserveMessageQuotaResponse = z.infer<typeof ReserveMessageQuotaResponseSchema>;

/** `count` places, or the named reservation whole (nothing when it is not held). */
export const ReleaseMessageQuotaRequestSchema = z
  .object({
    company_id: z.number().int().positive(),
    month: MonthSchema,
    count: z.number().int().positive().max(1_000_000).optional(),
    reservation_id: ReservationIdSchema.optional(),
  })
  .refine((request) => (request.count === undefined) !== (request.reservation_id === undefined), {
    message: 'count or reservation_id is required, not both',
    path: ['count'],
  });
export type ReleaseMessageQuotaRequest = z.infer<typeof ReleaseMessageQuotaRequestSchema>;

export const ReleaseMessageQuotaResponseSchema = successResponse({
  month: MonthSchema,
  released: z.number().int().nonnegative(),
});
export type ReleaseMessageQuotaResponse = z.infer<typeof ReleaseMessageQuotaResponseSchema>;

/**
 * Holds one place of this month for a message a `messaging.send` command will name in
 * `quota_hold`. Asked again under the same name, nothing more is taken. A hold no command takes
 * over within two send leases (2 min) is given back by messaging: a producer that dies before
 * handing the message over holds nothing.
 */
export const HoldMessageQuotaRequestSchema = z.object({
  company_id: z.number().int().positive(),
  plan: PlanSchema,
  plan_started_at: z.iso.datetime({ offset: true }),
  hold_id: HoldIdSchema,
});
export type HoldMessageQuotaRequest = z.infer<typeof HoldMessageQuotaRequestSchema>;

/** 200 when the place is held; otherwise the 429 quota error and nothing held. */
export const HoldMessageQuotaResponseSchema = successResponse({ month: MonthSchema });
export type HoldMessageQuotaResponse = z.infer<typeof HoldMessageQuotaResponseSchema>;
