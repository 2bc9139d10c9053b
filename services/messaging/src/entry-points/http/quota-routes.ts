import type { Router } from 'express';
import {
  HoldMessageQuotaRequestSchema,
  InternalUsageParamsSchema,
  InternalUsageQuerySchema,
  monthKey,
  USAGE_INTERNAL_ROUTE,
  type InternalUsageResponse,
  MESSAGING_INTERNAL_PATHS,
  ReleaseMessageQuotaRequestSchema,
  ReserveMessageQuotaRequestSchema,
  type HoldMessageQuotaResponse,
  type ReleaseMessageQuotaResponse,
  type ReserveMessageQuotaResponse,
} from '@switchboard/contracts';
import { parseInput } from '@switchboard/service-kit';
import type { MessageQuota } from '../../domain/message-quota';

/** Internal: a campaign reserves its whole audience's messages at once, or none (ARCHITECTURE §5). */
export function quotaRoutes(router: Router, deps: { quota: MessageQuota }): void {
  router.post(MESSAGING_INTERNAL_PATHS.reserveQuota, async (req, res) => {
    const request = parseInput(ReserveMessageQuotaRequestSchema, req.body ?? {});
    const month = await deps.quota.reserve(request);
    const body: ReserveMessageQuotaResponse = { status: 'success', month, reserved: request.count };
    res.json(body);
  });

  router.post(MESSAGING_INTERNAL_PATHS.holdQuota, async (req, res) => {
    const request = parseInput(HoldMessageQuotaRequestSchema, req.body ?? {});
    const body: HoldMessageQuotaResponse = {
      status: 'success',
      month: await deps.quota.hold(request),
    };
    res.json(body);
  });

  router.post(MESSAGING_INTERNAL_PATHS.releaseQuota, async (req, res) => {
    const request = parseInput(ReleaseMessageQuotaRequestSchema, req.body ?? {});
    const body: ReleaseMessageQuotaResponse = {
      status: 'success',
      month: request.month,
      released: await deps.quota.release(request),
    };
    res.json(body);
  });

  // The gateway's getUsage: messages sent in a month (the current one unless named).
  router.get(USAGE_INTERNAL_ROUTE, async (req, res) => {
    const { company_id } = parseInput(InternalUsageParamsSchema, req.params);
    const { month = monthKey() } = parseInput(InternalUsageQuerySchema, req.query);
    const body: InternalUsageResponse = {
      status: 'success',
      used: await deps.quota.used(company_id, month),
    };
    res.json(body);
  });
}
