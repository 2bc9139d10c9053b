import type { Router } from 'express';
import {
  HoldMessageQuotaRequestSchema,
  MESSAGING_INTERNAL_PATHS,
  ReleaseMessageQuotaRequestSchema,
  ReserveMessageQuotaRequestSchema,
  limitFor,
  monthKey,
  quotaExceededMessage,
  type HoldMessageQuotaResponse,
  type ReleaseMessageQuotaResponse,
  type ReserveMessageQuotaResponse,
} from '@switchboard/contracts';
import { AppError, parseInput } from '@switchboard/service-kit';
import type { QuotaStore } from '../../data-access/quota-store';

/** Internal: a campaign reserves its whole audience's messages at once, or none (ARCHITECTURE §5). */
export function quotaRoutes(router: Router, deps: { quotas: QuotaStore }): void {
  router.post(MESSAGING_INTERNAL_PATHS.reserveQuota, async (req, res) => {
    const request = parseInput(ReserveMessageQuotaRequestSchema, req.body ?? {});
    const now = new Date();
    const planStartedAt = new Date(request.plan_started_at);
    const month = monthKey(now);
    const limit = limitFor(request.plan, 'messagesPerMonth', planStartedAt, now);
    const reserved = await deps.quotas.reserve(
      request.company_id,
      month,
      limit,
      request.count,
      request.reservation_id,
    );
    if (!reserved) {
      throw new AppError(
        'quota_exceeded',
        quotaExceededMessage(request.plan, 'messagesPerMonth', planStartedAt, now),
      );
    }
    const body: ReserveMessageQuotaResponse = { status: 'success', month, reserved: request.count };
    res.json(body);
  });

  // One automated answer's place, until the command naming it is stored (or given back).
  router.post(MESSAGING_INTERNAL_PATHS.holdQuota, async (req, res) => {
    const request = parseInput(HoldMessageQuotaRequestSchema, req.body ?? {});
    const now = new Date();
    const planStartedAt = new Date(request.plan_started_at);
    const limit = limitFor(request.plan, 'messagesPerMonth', planStartedAt, now);
    const month = await deps.quotas.hold(
      request.company_id,
      monthKey(now),
      limit,
      request.hold_id,
      now,
    );
    if (!month) {
      throw new AppError(
        'quota_exceeded',
        quotaExceededMessage(request.plan, 'messagesPerMonth', planStartedAt, now),
      );
    }
    const body: HoldMessageQuotaResponse = { status: 'success', month };
    res.json(body);
  });

  router.post(MESSAGING_INTERNAL_PATHS.releaseQuota, async (req, res) => {
    const request = parseInput(ReleaseMessageQuotaRequestSchema, req.body ?? {});
    const released = request.reservation_id
      ? await deps.quotas.releaseReservation(
          request.company_id,
          request.month,
          request.reservation_id,
        )
      : await deps.quotas.release(request.company_id, request.month, request.count!);
    const body: ReleaseMessageQuotaResponse = {
      status: 'success',
      month: request.month,
      released,
    };
    res.json(body);
  });
}
