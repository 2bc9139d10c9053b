import {
  limitFor,
  monthKey,
  quotaExceededMessage,
  type HoldMessageQuotaRequest,
  type ReleaseMessageQuotaRequest,
  type ReserveMessageQuotaRequest,
} from '@switchboard/contracts';
import { AppError, type QuotaCounter } from '@switchboard/service-kit';

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

export function createMessageQuota(quotas: QuotaCounter): MessageQuota {
  return {
    async reserve(request, now = new Date()) {
      const month = monthKey(now);
      const at = { owner: request.company_id, month };
      const limit = limitOf(request, now);
      const reserved = request.reservation_id
        ? await quotas.reserve(at, limit, request.reservation_id, request.count)
        : await quotas.take(at, limit, { count: request.count });
      if (!reserved) throw exceeded(request, now);
      return month;
    },
    async hold(request, now = new Date()) {
      const month = monthKey(now);
      const at = { owner: request.company_id, month };
      if (!(await quotas.hold(at, limitOf(request, now), request.hold_id, now))) {
        throw exceeded(request, now);
      }
      return month;
    },
    release: (request) => {
      const at = { owner: request.company_id, month: request.month };
      return request.reservation_id
        ? quotas.release(at, request.reservation_id)
        : quotas.giveBack(at, request.count!);
    },
    used: (company_id, month) => quotas.usage({ owner: company_id, month }),
  };
}
