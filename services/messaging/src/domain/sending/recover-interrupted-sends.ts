import { monthKey } from '@switchboard/contracts';
import type { Logger, QuotaCounter } from '@switchboard/service-kit';
import type { MessageStore } from '../../data-access/message-store';
import { messageIdOfHold } from '../../data-access/quota-store';
import type { Sender } from './send-message';

export interface RecoveryDeps {
  messages: Pick<MessageStore, 'findById' | 'interrupted'>;
  quotas: Pick<QuotaCounter, 'heldBefore' | 'settle' | 'giveBackHold'>;
  sender: Pick<Sender, 'failInterrupted'>;
  /** The send lease: a live send stores its message within one, and answers within one more. */
  leaseMs: number;
  /**
   * How long a broker command's interrupted send waits for its command to come back before it is
   * failed: the command returns to the broker when its process dies, and its retries wait behind
   * whatever else is queued (a campaign's thousands of sends), so they may need far more than a
   * lease. Only a command the broker gave up on (parked) leaves its send to this.
   */
  commandGraceMs: number;
  logger: Logger;
}

/** The month before `now`'s (a hold taken in the last moments of a month lives in that one). */
function previousMonth(now: Date): string {
  return monthKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
}

/**
 * Resolves what sends left behind when their process died, once two leases have passed (a live
 * send never takes that long, and a retry with its key gets the first lease to take it over):
 * - a quota place held for a message that was never stored is given back; a hold whose message
 *   is stored only loses its name (the message holds the place);
 * - a message still pending is failed with `message_failed` and its place given back. It is
 *   never sent again (see `failInterrupted`): had the provider accepted it, its `sent` status
 *   would have named the message and stored the acceptance already. A broker command's send is
 *   left to its command for `commandGraceMs` instead.
 */
export async function recoverInterruptedSends(deps: RecoveryDeps, now = new Date()): Promise<void> {
  const before = new Date(now.getTime() - 2 * deps.leaseMs);
  const storedHolds: Awaited<ReturnType<QuotaCounter['heldBefore']>> = [];
  for (const month of [monthKey(now), previousMonth(now)]) {
    for (const held of await deps.quotas.heldBefore(before, month)) {
      const messageId = messageIdOfHold(held.name);
      const stored = messageId !== undefined && (await deps.messages.findById(messageId));
      if (stored) {
        storedHolds.push(held);
        continue;
      }
      if (await deps.quotas.giveBackHold(held.at, held.name)) {
        deps.logger.warn(
          { company_id: held.at.owner, hold: held.name, held_at: held.heldAt },
          'a quota place held for a message never handed over was given back',
        );
      }
    }
  }
  // A settled name waits for a write to ride with (up to a second): all of them settled together,
  // not one after the other, cost the job one wait and one write.
  await Promise.all(storedHolds.map((held) => deps.quotas.settle(held.at, held.name)));
  // Pending with a lease that ran out a whole lease ago: no retry took the send over.
  const leaseEndedBefore = new Date(now.getTime() - deps.leaseMs);
  const commandsBefore = new Date(now.getTime() - deps.commandGraceMs);
  for (const message of await deps.messages.interrupted(leaseEndedBefore, commandsBefore, 100)) {
    await deps.sender.failInterrupted(message.id, now);
  }
}
