import { limitFor, monthKey, quotaExceededMessage } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import { messageHold, type QuotaStore } from '../../data-access/quota-store';
import type { SendRequest } from './send-types';

/** A message's place in its organization's monthly quota, and the hold name it is kept under. */
export interface QuotaPlace {
  month: string;
  /** Absent when the producer reserved the place itself. */
  hold?: string;
}

/**
 * The message's quota place: the producer's, or held under the message's own hold name until
 * the message is stored, so that a process dying before that leaves a place the recovery job
 * can name and give back. A full quota refuses the send.
 */
export async function reserveQuota(
  quotas: Pick<QuotaStore, 'hold' | 'holdWithOthers'>,
  id: number,
  request: Pick<SendRequest, 'organization' | 'reservedMonth' | 'producerHold'>,
  now: Date,
): Promise<QuotaPlace> {
  if (request.reservedMonth) return { month: request.reservedMonth };
  const { company_id, plan, plan_started_at } = request.organization;
  const limit = limitFor(plan, 'messagesPerMonth', plan_started_at, now);
  const hold = messageHold(id);
  const month = request.producerHold
    ? await quotas.hold(company_id, monthKey(now), limit, hold, now, request.producerHold)
    : await quotas.holdWithOthers(company_id, monthKey(now), limit, hold, now);
  if (!month) {
    throw new AppError(
      'quota_exceeded',
      quotaExceededMessage(plan, 'messagesPerMonth', plan_started_at, now),
    );
  }
  return { month, hold };
}

/** Gives a place back when its send stops before the message is stored. */
export async function giveBackQuota(
  quotas: Pick<QuotaStore, 'giveBackHold' | 'release'>,
  company_id: number,
  { month, hold }: QuotaPlace,
): Promise<void> {
  if (hold) await quotas.giveBackHold(company_id, month, hold);
  else await quotas.release(company_id, month);
}
