import type { LiveEvent, LiveFeedBatch } from '@switchboard/contracts';
import type { LiveEventLog, LoggedEvent } from '../data-access/live-event-log';

/**
 * Logs a batch of events in the order they came, giving each the next id, then hands the batch
 * (ids included) to every replica. An event logged before (a redelivery) keeps its first id and
 * is handed on again: a replica that already sent it skips ids it has passed.
 */
export async function writeLiveEvents(
  deps: { log: LiveEventLog; fanOut(batch: LiveFeedBatch): Promise<void> },
  events: readonly LiveEvent[],
  now = new Date(),
): Promise<void> {
  if (events.length === 0) return;
  const first = await deps.log.reserve(events.length);
  const logged: LoggedEvent[] = events.map((event, index) => ({
    _id: event.id,
    seq: first + index,
    company_id: event.company_id,
    event: event.event,
    body: JSON.stringify(event),
    logged_at: now,
  }));
  const earlier = new Map((await deps.log.append(logged)).map((event) => [event._id, event]));
  const entries = logged
    .map((event) => earlier.get(event._id) ?? event)
    .filter((event, index, all) => all.findIndex((other) => other._id === event._id) === index)
    .sort((a, b) => a.seq - b.seq)
    .map(({ seq, company_id, event, body }) => ({ seq, company_id, event, body }));
  await deps.fanOut({ entries });
}

/** Writes batches of live events to the log and hands each batch on with `fanOut`. */
export function createLiveEventWriter(log: LiveEventLog) {
  return {
    write: (events: readonly LiveEvent[], fanOut: (batch: LiveFeedBatch) => Promise<void>) =>
      writeLiveEvents({ log, fanOut }, events),
  };
}

export type LiveEventWriter = ReturnType<typeof createLiveEventWriter>;
