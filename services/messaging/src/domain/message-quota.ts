import {
  limitFor,
  monthKey,
  quotaExceededMessage,
  type HoldMessageQuotaRequest,
  type ReleaseMessageQuotaRequest,
  type ReserveMessageQuotaRequest,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { QuotaStore } from '../data-access/quota-store';

/** The monthly message quota as other services use it: all or nothing, never past the plan. */
export interface MessageQuota {
  /** A campaign's whole audience at once, or nothing; answers the month it counts in. */
  reserve(request: ReserveMessageQuotaRequest, now?: Date): Promise<string>;
  /** One automated answer's place, until the command naming it is stored (or given back). */
  hold(request: HoldMessageQuotaRequest, now?: Date): Promise<string>;
  /** Gives back a reservation or a count; answers how many went back. */
  release(request: ReleaseMessageQuotaRequest): Promise<number>;
  /** Messages the organization has sent in `month` (held places included). */
  used(company_id: number, month: string): Promise<number>;
}

type PlanOf = Pick<ReserveMessageQuotaRequest, 'plan' | 'plan_started_at'>;

function exceeded(request: PlanOf, now: Date): AppError {
  const planStartedAt = new Date(request.plan_started_at);
  return new AppError(
    'quota_exceeded',
    quotaExceededMessage(request.plan, 'messagesPerMonth', planStartedAt, now),
  );
}

const limitOf = (request: PlanOf, now: Date) =>
  limitFor(request.plan, 'messagesPerMonth', new Date(request.plan_started_at), now);

export function createMessageQuota(quotas: QuotaStore): MessageQuota {
  return {
    async reserve(request, now = new Date()) {
      const month = monthKey(now);
      const reserved = await quotas.reserve(
        request.company_id,
        month,
        limitOf(request, now),
        request.count,
        request.reservation_id,
      );
      if (!reserved) throw exceeded(request, now);
      return month;
    },
    async hold(request, now = new Date()) {
      const month = await quotas.hold(
        request.company_id,
        monthKey(now),
        limitOf(request, now),
        request.hold_id,
        now,
      );
      if (!month) throw exceeded(request, now);
      return month;
    },
    release: (request) =>
      request.reservation_id
        ? quotas.releaseReservation(request.company_id, request.month, request.reservation_id)
        : quotas.release(request.company_id, request.month, request.count!),
    used: (company_id, month) => quotas.used(company_id, month),
  };
}
