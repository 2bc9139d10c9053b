import type { BrokerEvent, StoredMessageStatus } from '@switchboard/contracts';
import { addToOutbox, outboxChange, slices, stringKeyed } from '@switchboard/service-kit';
import type { DeliveryStatus, HistoryEntry, Messages } from './message-documents';

/**
 * Statuses to record on one message in one write, decided from the message as it was read: the
 * write happens only if the message is still in that state (its status and how many statuses it
 * has seen), so a change made meanwhile elsewhere makes it match nothing instead of being lost.
 */
export interface StatusChange {
  id: number;
  /**
   * The state the change was decided from: its status and how many statuses it had seen, or,
   * for a state assumed rather than read, which ones (`statuses`) and whose message it is
   * (`owner`: the organization's outbound message accepted under that wamid, with that contact,
   * campaign and number).
   */
  from: {
    status: StoredMessageStatus;
    seen: number;
    statuses?: string[];
    owner?: {
      wamid: string;
      company_id: number;
      contact_id: number;
      campaign_id: number | null;
      phone_number_id: string;
    };
  };
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
     * Writes a batch of statuses in as few commands as the database allows (one, up to its
     * statement limit): `changes` decided from the messages as read, `sents` and `moves` without
     * a read (see their builders). Each carries the clear of its message's published events
     * found in `clears` (by `_id`), so that the message is not written once more for that alone.
     * Answers how many of the writes landed; when fewer than all, which ones did is not told, and
     * the caller looks closer.
     */
    async writeStatuses(
      {
        changes,
        sents,
        moves,
      }: { changes: StatusChange[]; sents: SentStatus[]; moves: BlindMove[] },
      now: Date,
      clears: ReadonlyMap<string, string[]> = new Map(),
    ): Promise<number> {
      const cleared = (id: number) => clears.get(String(id)) ?? [];
      const writes = [
        ...changes.map((change) => changeWrite(change, now, cleared(change.id))),
        ...moves.map((move) => moveWrite(move, now, cleared(move.id))),
        ...sents.map((sent) => sentWrite(sent, now, cleared(sent.id))),
      ];
      let matched = 0;
      for (const slice of slices(writes)) {
        const result = await stringKeyed(Messages).bulkWrite(slice, { ordered: false });
        matched += result.matchedCount;
      }
      return matched;
    },
  };
}

/** The provider's `sent` of an accepted message, recorded without reading it (see sentWrite). */
export interface SentStatus {
  id: number;
  wamid: string;
  company_id: number;
  at: Date;
}

/** A delivered or read moving an accepted message without reading it (see moveWrite). */
export interface BlindMove {
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
}

/** A change decided from the message as read, by `_id`, guarded by the state it was decided from. */
function changeWrite(change: StatusChange, now: Date, cleared: readonly string[]) {
  const outbox = outboxChange(change.events, cleared);
  const times = Object.entries(change.to?.times ?? {}).map(
    ([status, at]) => [`status_times.${status}`, at] as const,
  );
  return {
    updateOne: {
      filter: {
        _id: String(change.id),
        ...(change.from.owner ? { ...change.from.owner, direction: 'outbound' } : {}),
        status: change.from.status,
        statuses_seen:
          change.from.statuses && change.from.statuses.length > 0
            ? { $all: change.from.statuses, $size: change.from.seen }
            : { $size: change.from.seen },
        ...outbox.guard,
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
        ...clearParts(outbox),
      },
    },
  };
}

/**
 * The provider's `sent` of an accepted message: `sent` never moves a message (acceptance did) and
 * carries no event, so it is one write by `_id`, guarded so that it lands only on the
 * organization's outbound message accepted under that wamid and only once.
 */
function sentWrite(item: SentStatus, now: Date, cleared: readonly string[]) {
  const outbox = outboxChange([], cleared);
  return {
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
        ...clearParts(outbox),
      },
    },
  };
}

/**
 * A delivered or read whose status webhook named the message, its contact and campaign: one
 * write by `_id`, guarded so that it lands only on the organization's outbound message accepted
 * under that wamid, from a status the move is allowed from (`from`), with the status not seen
 * before, and writes the move's events with it.
 */
function moveWrite(item: BlindMove, now: Date, cleared: readonly string[]) {
  const outbox = outboxChange(item.events, cleared);
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
        ...outbox.guard,
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
        ...clearParts(outbox),
      },
    },
  };
}

/** The operators of an update that take published events out of the outbox (none when empty). */
function clearParts(outbox: ReturnType<typeof outboxChange>) {
  return {
    ...(outbox.unset ? { $unset: outbox.unset } : {}),
    ...(outbox.pullAll ? { $pullAll: outbox.pullAll } : {}),
  };
}
