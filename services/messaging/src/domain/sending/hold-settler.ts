import type { Logger } from '@switchboard/service-kit';
import type { QuotaStore } from '../../data-access/quota-store';
import { createWriteBatcher } from '../../data-access/write-batcher';

interface Settled {
  company_id: number;
  month: string;
  name: string;
}

/**
 * Drops the names of holds whose messages are stored, many per write. A stored message holds its
 * place by itself, so the name only has to go eventually (the recovery job drops any that a crash
 * leaves, once it finds the message): names wait while a write is in flight and all go in the
 * next, one write per month's record, so concurrent sends share a write instead of one each.
 */
export function createHoldSettler(quotas: Pick<QuotaStore, 'settleHolds'>, logger: Logger) {
  const batcher = createWriteBatcher<Settled>(async (items) => {
    const byRecord = new Map<string, Settled[]>();
    for (const item of items) {
      const key = `${item.company_id}:${item.month}`;
      byRecord.set(key, [...(byRecord.get(key) ?? []), item]);
    }
    await Promise.all(
      [...byRecord.values()].map(([first, ...rest]) =>
        quotas.settleHolds(
          first!.company_id,
          first!.month,
          [first!, ...rest].map((s) => s.name),
        ),
      ),
    );
  });

  return {
    /** Not awaited by the send: a failure only leaves names for the recovery job. */
    settle(company_id: number, month: string, name: string): void {
      batcher.add({ company_id, month, name }).catch((error: unknown) => {
        logger.warn({ err: error, company_id, hold: name }, 'quota hold left for the recovery job');
      });
    },
    drain: () => batcher.drain(),
  };
}

export type HoldSettler = ReturnType<typeof createHoldSettler>;
