import { z } from 'zod';
import { PlanSchema, type Plan } from './plans';

/** Headers in which the gateway states the organization a request acts for (ARCHITECTURE §2). */
export const ORG_HEADERS = {
  companyId: 'x-org-id',
  plan: 'x-org-plan',
  planStartedAt: 'x-org-plan-started-at',
} as const;

export const REQUEST_ID_HEADER = 'x-request-id';
export const INTERNAL_SECRET_HEADER = 'x-internal-secret';
export const TRACEPARENT_HEADER = 'traceparent';
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/**
 * Set by campaigns on an API campaign's send to messaging's own operation, so the message and its
 * events carry the campaign; internal only (the gateway never forwards it from a client).
 */
export const CAMPAIGN_ID_HEADER = 'x-campaign-id';
/**
 * The signed-in user a request of the console acts for, set by the gateway from the session
 * (never taken from a client: the gateway forwards only headers it names). Absent for an API
 * token, which acts for the organization and for no one in it.
 */
export const USER_HEADERS = {
  userId: 'x-user-id',
  role: 'x-user-role',
} as const;
/** The provider's signature on inbound webhooks (ARCHITECTURE §8). */
export const PROVIDER_SIGNATURE_HEADER = 'x-hub-signature-256';

/** Headers of an outbound webhook delivery (the published outbound delivery, ARCHITECTURE §7). */
export const WEBHOOK_HEADERS = {
  event: 'X-Webhook-Event',
  signature: 'X-Webhook-Signature',
  id: 'X-Webhook-Id',
  standardId: 'webhook-id',
  standardTimestamp: 'webhook-timestamp',
  standardSignature: 'webhook-signature',
} as const;

/** Reads the org headers from a header record (Node lowercases names); unknown headers are ignored. */
export const OrgContextSchema = z
  .object({
    [ORG_HEADERS.companyId]: z.coerce.number().int().positive(),
    [ORG_HEADERS.plan]: PlanSchema,
    [ORG_HEADERS.planStartedAt]: z.iso.datetime({ offset: true }),
  })
  .transform((headers) => ({
    company_id: headers[ORG_HEADERS.companyId],
    plan: headers[ORG_HEADERS.plan],
    plan_started_at: new Date(headers[ORG_HEADERS.planStartedAt]),
  }));
export type OrgContext = z.infer<typeof OrgContextSchema>;

/** The inverse of {@link OrgContextSchema}: the headers that state an organization. */
export function orgHeaders(context: {
  company_id: number;
  plan: Plan;
  plan_started_at: Date;
}): Record<string, string> {
  return {
    [ORG_HEADERS.companyId]: String(context.company_id),
    [ORG_HEADERS.plan]: context.plan,
    [ORG_HEADERS.planStartedAt]: context.plan_started_at.toISOString(),
  };
}
