import type { BrokerEvent, StoredMessageStatus } from '@switchboard/contracts';
import { addToOutbox, slices, stringKeyed } from '@switchboard/service-kit';
import type { DeliveryStatus, HistoryEntry, Messages } from './message-documents';

/**
 * Statuses to record on one message in one write, decided from the message as it was read: the
 * write happens only if the message is still in that state (its status and how many statuses it
 * has seen), so a change made meanwhile elsewhere makes it match nothing instead of being lost.
 */
export interface StatusChange {
  id: number;
  /** The state the change was decided from. */
  from: { status: StoredMessageStatus; seen: number };
  /** Where the message moves, if anywhere. */
  to: {
    status: StoredMessageStatus;
    times: Partial<Record<DeliveryStatus, Date>>;
    error?: string | null;
  } | null;
  history: HistoryEntry[];
  statuses: string[];
  events: BrokerEvent[];
}

/** Recording the statuses the provider reports of sent messages, one or many per write. */
export function statusWrites(Messages: Messages) {
  return {
    /**
     * Records a provider status in the message's history, once per status (`statuses_seen`),
     * and — when `moves` — moves the message to it with its events, in one write by `_id`. The
     * caller decided `moves` from the message as it read it, holding the message's lock.
     */
    async recordStatus(
      id: number,
      status: string,
      at: Date,
      change: { moves: boolean; error: string | null },
      now: Date,
      events: BrokerEvent[],
    ): Promise<void> {
      const outbox = addToOutbox(change.moves ? events : []);
      await Messages.updateOne(
        { _id: String(id) },
        {
          $set: {
            updated_at: now,
            ...(change.moves
              ? {
                  status,
                  [`status_times.${status}`]: at,
                  ...(status === 'failed' ? { error: change.error } : {}),
                  ...outbox.set,
                }
              : {}),
          },
          $push: { history: { status, at, applied: change.moves } },
          $addToSet: { statuses_seen: status, ...outbox.addToSet },
        },
      );
    },

    /**
     * Applies status changes to many messages in as few writes as the database allows (each by
     * `_id`, guarded by the state it was decided from); answers how many found that state.
     */
    async applyStatusChanges(changes: StatusChange[], now: Date): Promise<number> {
      let matched = 0;
      for (const slice of slices(changes)) {
        const result = await stringKeyed(Messages).bulkWrite(
          slice.map((change) => {
            const outbox = addToOutbox(change.events);
            const times = Object.entries(change.to?.times ?? {}).map(
              ([status, at]) => [`status_times.${status}`, at] as const,
            );
            return {
              updateOne: {
                filter: {
                  _id: String(change.id),
                  status: change.from.status,
                  statuses_seen: { $size: change.from.seen },
                },
                update: {
                  $set: {
                    updated_at: now,
                    ...(change.to
                      ? {
                          status: change.to.status,
                          ...Object.fromEntries(times),
                          ...(change.to.error !== undefined ? { error: change.to.error } : {}),
                        }
                      : {}),
                    ...outbox.set,
                  },
                  $push: { history: { $each: change.history } },
                  $addToSet: { statuses_seen: { $each: change.statuses }, ...outbox.addToSet },
                },
              },
            };
          }),
          { ordered: false },
        );
        matched += result.matchedCount;
      }
      return matched;
    },

    /**
     * Records the provider's `sent` of accepted messages without reading them: `sent` never moves
     * a message (acceptance did) and carries no event, so each is one write by `_id`, guarded so
     * that it lands only on the organization's outbound message accepted under that wamid and
     * only once. Answers how many landed; one that did not was a repeat or needs a closer look.
     */
    async recordSentStatuses(
      items: { id: number; wamid: string; company_id: number; at: Date }[],
      now: Date,
    ): Promise<number> {
      let matched = 0;
      for (const slice of slices(items)) {
        const result = await stringKeyed(Messages).bulkWrite(
          slice.map((item) => ({
            updateOne: {
              filter: {
                _id: String(item.id),
                wamid: item.wamid,
                company_id: item.company_id,
                direction: 'outbound',
                statuses_seen: { $ne: 'sent' },
              },
              update: {
                $set: { updated_at: now },
                $push: { history: { status: 'sent', at: item.at, applied: false } },
                $addToSet: { statuses_seen: 'sent' },
              },
            },
          })),
          { ordered: false },
        );
        matched += result.matchedCount;
      }
      return matched;
    },

    /**
     * Moves accepted messages forward to a status without reading them first (their status
     * webhook named the message, its contact and campaign): each is one write by `_id`, guarded
     * so that it lands only on the organization's outbound message accepted under that wamid,
     * from a status the move is allowed from (`from`), with the status not seen before, and
     * writes the move's events with it. Answers how many landed; one that did not was a repeat,
     * out of order, or not what its status said, and needs a closer look.
     */
    async moveWithoutRead(
      items: {
        id: number;
        wamid: string;
        company_id: number;
        contact_id: number;
        campaign_id: number | null;
        phone_number_id: string;
        status: DeliveryStatus;
        from: StoredMessageStatus[];
        at: Date;
        events: BrokerEvent[];
      }[],
      now: Date,
    ): Promise<number> {
      let matched = 0;
      for (const slice of slices(items)) {
        const result = await stringKeyed(Messages).bulkWrite(
          slice.map((item) => {
            const outbox = addToOutbox(item.events);
            return {
              updateOne: {
                filter: {
                  _id: String(item.id),
                  wamid: item.wamid,
                  company_id: item.company_id,
                  contact_id: item.contact_id,
                  campaign_id: item.campaign_id,
                  phone_number_id: item.phone_number_id,
                  direction: 'outbound',
                  status: { $in: item.from },
                  statuses_seen: { $ne: item.status },
                },
                update: {
                  $set: {
                    status: item.status,
                    [`status_times.${item.status}`]: item.at,
                    updated_at: now,
                    ...outbox.set,
                  },
                  $push: { history: { status: item.status, at: item.at, applied: true } },
                  $addToSet: { statuses_seen: item.status, ...outbox.addToSet },
                },
              },
            };
          }),
          { ordered: false },
        );
        matched += result.matchedCount;
      }
      return matched;
    },
  };
}
