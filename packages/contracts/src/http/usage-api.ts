import { z } from 'zod';
import { successResponse } from '../envelope';
import { PlanSchema } from '../plans';
import { defineOperation } from './operation';

/**
 * Plan usage: how much of each quota an organization has used. The gateway answers `getUsage`;
 * each counter lives with the service that owns the resource, which the gateway asks on
 * {@link usageInternalPath} (messaging: messages this month, campaigns: campaigns this month,
 * contacts: contacts held) while it counts the users itself.
 */

/** The quotas `getUsage` reports, each named as the plan names the resource it limits. */
export const USAGE_QUOTAS = ['messages', 'campaigns', 'contacts', 'agents'] as const;
export const UsageQuotaSchema = z.enum(USAGE_QUOTAS);
export type UsageQuota = z.infer<typeof UsageQuotaSchema>;

/** The services that keep a counter the gateway asks for; users are the gateway's own. */
export const USAGE_OWNERS = {
  messages: 'messaging',
  campaigns: 'campaigns',
  contacts: 'contacts',
} as const satisfies Partial<Record<UsageQuota, string>>;
/** A quota whose counter another service keeps. */
export type CountedElsewhere = keyof typeof USAGE_OWNERS;

/** GET: one organization's count of the resource its service owns (`?month=` for monthly ones). */
export const USAGE_INTERNAL_ROUTE = '/internal/usage/:company_id';
export const usageInternalPath = (company_id: number) => `/internal/usage/${company_id}`;

export const MonthSchema = z
  .string()
  .regex(/^[0-9]{4}-(0[1-9]|1[0-2])$/, 'must be a month like 2026-11')
  .describe('A calendar month in UTC, YYYY-MM.');

export const InternalUsageParamsSchema = z.object({
  company_id: z.coerce.number().int().positive(),
});
export const InternalUsageQuerySchema = z.object({ month: MonthSchema.optional() });

export const InternalUsageResponseSchema = successResponse({
  used: z.number().int().nonnegative(),
});
export type InternalUsageResponse = z.infer<typeof InternalUsageResponseSchema>;

export const QuotaUsageSchema = z.object({
  used: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe('How much is used; null when the service that counts it did not answer in time.'),
  limit: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe('The limit in force; null for unlimited, 0 once a free trial has ended.'),
});
export type QuotaUsage = z.infer<typeof QuotaUsageSchema>;

export const UsageResponseSchema = successResponse({
  plan: PlanSchema,
  /** The calendar month (UTC) the monthly quotas count in. */
  month: MonthSchema,
  usage: z.object({
    messages: QuotaUsageSchema.describe('Messages sent this month.'),
    campaigns: QuotaUsageSchema.describe('Campaigns started this month.'),
    contacts: QuotaUsageSchema.describe('Contacts held.'),
    agents: QuotaUsageSchema.describe('Users of the organization, the owner included.'),
  }),
  /** The quotas whose count could not be read now (their `used` is null); empty when all were. */
  unavailable: z.array(UsageQuotaSchema),
});
export type UsageResponse = z.infer<typeof UsageResponseSchema>;

export const USAGE_OPERATIONS = [
  defineOperation({
    owner: 'gateway',
    method: 'get',
    path: '/api/svc/getUsage',
    operationId: 'getUsage',
    summary: "The organization's use of each plan quota this month",
    description:
      'Each quota with what is used and its limit (null: unlimited). The counts come from the ' +
      'services that keep them; one that does not answer within a few seconds is listed in ' +
      '`unavailable` with `used` null, and the rest are still answered.',
    tags: ['account'],
    auth: 'token_or_session',
    responses: { 200: UsageResponseSchema },
  }),
];
