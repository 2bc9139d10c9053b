import { limitFor, monthKey, quotaExceededMessage } from '@switchboard/contracts';
import { AppError, type QuotaCounter } from '@switchboard/service-kit';
import { messageHold } from '../../data-access/quota-store';
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
 * can name and give back. A producer's hold is moved to the message's name in one write, so
 * the producer's can never be given back once the message has it. A full quota refuses the send.
 */
export async function reserveQuota(
  quotas: Pick<QuotaCounter, 'hold' | 'moveHold'>,
  id: number,
  request: Pick<SendRequest, 'organization' | 'reservedMonth' | 'producerHold'>,
  now: Date,
): Promise<QuotaPlace> {
  if (request.reservedMonth) return { month: request.reservedMonth };
  const { company_id, plan, plan_started_at } = request.organization;
  const hold = messageHold(id);
  const producer = request.producerHold;
  if (
    producer &&
    (await quotas.moveHold({ owner: company_id, month: producer.month }, producer.name, hold, now))
  ) {
    return { month: producer.month, hold };
  }
  const month = monthKey(now);
  const limit = limitFor(plan, 'messagesPerMonth', plan_started_at, now);
  if (!(await quotas.hold({ owner: company_id, month }, limit, hold, now))) {
    throw new AppError(
      'quota_exceeded',
      quotaExceededMessage(plan, 'messagesPerMonth', plan_started_at, now),
    );
  }
  return { month, hold };
}

/** Gives a place back when its send stops before the message is stored. */
export async function giveBackQuota(
  quotas: Pick<QuotaCounter, 'giveBackHold' | 'giveBack'>,
  company_id: number,
  { month, hold }: QuotaPlace,
): Promise<void> {
  if (hold) await quotas.giveBackHold({ owner: company_id, month }, hold);
  else await quotas.giveBack({ owner: company_id, month });
}
