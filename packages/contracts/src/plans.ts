import { z } from 'zod';
import { QUOTA_MESSAGE_PREFIX } from './envelope';

export const PLAN_NAMES = ['free', 'standard', 'premium'] as const;
export const PlanSchema = z.enum(PLAN_NAMES);
export type Plan = z.infer<typeof PlanSchema>;

/** Quota limits of one plan; `null` means unlimited. */
export interface PlanLimits {
  messagesPerMonth: number | null;
  campaignsPerMonth: number | null;
  contacts: number | null;
  agents: number | null;
}
export type PlanResource = keyof PlanLimits;

/** The published plan limits, the only place these numbers live. */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { messagesPerMonth: 100, campaignsPerMonth: 2, contacts: 100, agents: 1 },
  standard: { messagesPerMonth: null, campaignsPerMonth: 100, contacts: null, agents: 10 },
  premium: { messagesPerMonth: null, campaignsPerMonth: 500, contacts: null, agents: null },
};

/** A token bucket: `burst` requests at once, refilled at `perSecond`. */
export interface RequestRate {
  perSecond: number;
  burst: number;
}

/**
 * API request rates of one plan, for the whole deployment: each API token may use
 * half of its organization's rate, so one runaway integration leaves room for the others.
 */
export const PLAN_REQUEST_RATES: Record<Plan, { token: RequestRate; organization: RequestRate }> = {
  free: { token: { perSecond: 5, burst: 10 }, organization: { perSecond: 10, burst: 20 } },
  standard: { token: { perSecond: 25, burst: 50 }, organization: { perSecond: 50, burst: 100 } },
  premium: { token: { perSecond: 100, burst: 200 }, organization: { perSecond: 200, burst: 400 } },
};

export const FREE_TRIAL_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** When the plan stops allowing quota-limited operations; `null` for plans that never expire. */
export function planExpiresAt(plan: Plan, planStartedAt: Date): Date | null {
  return plan === 'free' ? new Date(planStartedAt.getTime() + FREE_TRIAL_DAYS * DAY_MS) : null;
}

/** Only the free plan expires, exactly {@link FREE_TRIAL_DAYS} days after it started. */
export function planHasExpired(plan: Plan, planStartedAt: Date, now = new Date()): boolean {
  const expiresAt = planExpiresAt(plan, planStartedAt);
  return expiresAt !== null && now.getTime() >= expiresAt.getTime();
}

/** The limit in force: `0` once the plan has expired, otherwise the plan's limit (`null` = unlimited). */
export function limitFor(
  plan: Plan,
  resource: PlanResource,
  planStartedAt: Date,
  now = new Date(),
): number | null {
  return planHasExpired(plan, planStartedAt, now) ? 0 : PLAN_LIMITS[plan][resource];
}

/** The quota period a moment belongs to: its calendar month in UTC, e.g. `2026-11`. */
export function monthKey(date: Date = new Date()): string {
  const month = String(date.getUTCMonth() + 1).padStart(2, '0');
  return `${date.getUTCFullYear()}-${month}`;
}

const RESOURCE_LABELS: Record<PlanResource, string> = {
  messagesPerMonth: 'messages per month',
  campaignsPerMonth: 'campaigns per month',
  contacts: 'contacts',
  agents: 'agents',
};

/** One wording for every service's quota error; it always starts with {@link QUOTA_MESSAGE_PREFIX}. */
export function quotaExceededMessage(
  plan: Plan,
  resource: PlanResource,
  planStartedAt: Date,
  now = new Date(),
): string {
  if (planHasExpired(plan, planStartedAt, now)) {
    return `${QUOTA_MESSAGE_PREFIX} of your ${plan} plan: its ${FREE_TRIAL_DAYS}-day trial has ended`;
  }
  const limit = PLAN_LIMITS[plan][resource];
  return `${QUOTA_MESSAGE_PREFIX} of ${limit ?? 'unlimited'} ${RESOURCE_LABELS[resource]} on the ${plan} plan`;
}
