import type { Router } from 'express';
import {
  HoldMessageQuotaRequestSchema,
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
}
