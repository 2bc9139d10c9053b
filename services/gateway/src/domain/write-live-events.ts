import type { LiveEvent, LiveFeedBatch } from '@switchboard/contracts';
import type { LiveEventIds } from '../data-access/live-event-ids';

/**
 * Ids reserved from the shared counter at once: one database command per this many events
 * rather than one per batch. Ids a writer reserved and never gave (it stopped, another took
 * over) are simply skipped: ids only have to increase.
 */
const ID_BLOCK = 10_000;

/**
 * Gives each batch of events the next ids, in the order they came, and hands the batch on with
 * `fanOut` (to every replica, which keeps it in memory for its streams' reconnects). Nothing is
 * written to the database per event. `seenUpTo` is the highest id this replica has seen on the
 * feed: a writer taking over again after another replica wrote skips past the other's ids
 * rather than give lower ones from a block it still holds.
 */
export function createLiveEventWriter(deps: { ids: LiveEventIds; seenUpTo(): number }) {
  let next = 1;
  let blockEnd = 0;

  async function take(count: number): Promise<number> {
    next = Math.max(next, deps.seenUpTo() + 1);
    if (next + count - 1 > blockEnd) {
      const size = Math.max(count, ID_BLOCK);
      next = await deps.ids.reserve(size);
      blockEnd = next + size - 1;
    }
    const first = next;
    next += count;
    return first;
  }

  return {
    async write(
      events: readonly LiveEvent[],
      fanOut: (batch: LiveFeedBatch) => Promise<void>,
    ): Promise<void> {
      if (events.length === 0) return;
      const first = await take(events.length);
      await fanOut({
        entries: events.map((event, index) => ({
          seq: first + index,
          company_id: event.company_id,
          event: event.event,
          body: JSON.stringify(event),
        })),
      });
    },
  };
}

export type LiveEventWriter = ReturnType<typeof createLiveEventWriter>;
