import type { Logger } from '@switchboard/service-kit';
import type { ContactStore } from '../data-access/contact-store';
import type { QuotaStore } from '../data-access/quota-store';

export interface ReconcileDeps {
  contacts: Pick<ContactStore, 'countPerCompany'>;
  quotas: Pick<QuotaStore, 'settled' | 'correct'>;
  logger: Logger;
}

/**
 * A place is taken before a contact is inserted and given back after one is deleted, so a process
 * that dies in between leaves its organization's counter one off. This sets each counter that has
 * been left alone for `settleMs` to the number of contacts really stored. Counters touched more
 * recently may belong to a write still in progress and wait for the next run; one touched while
 * this runs keeps its value (`correct` is conditional on the value read).
 */
export async function reconcileContactQuotas(
  deps: ReconcileDeps,
  settleMs: number,
  now = new Date(),
): Promise<number> {
  const counters = await deps.quotas.settled(new Date(now.getTime() - settleMs));
  if (counters.length === 0) return 0;
  const stored = await deps.contacts.countPerCompany(counters.map((counter) => counter._id));
  let corrected = 0;
  for (const counter of counters) {
    const count = stored.get(counter._id) ?? 0;
    if (count === counter.count) continue;
    if (await deps.quotas.correct(counter, count)) {
      corrected += 1;
      deps.logger.warn(
        { company_id: counter._id, counted: counter.count, stored: count },
        'contact quota counter corrected to the contacts stored',
      );
    }
  }
  return corrected;
}
