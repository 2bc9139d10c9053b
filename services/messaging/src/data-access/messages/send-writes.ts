import type { BrokerEvent } from '@switchboard/contracts';
import { addToOutbox, stringKeyed } from '@switchboard/service-kit';
import { op } from '../mongo-helpers';
import { createWriteBatcher } from '../write-batcher';
import { findMessageById, type Messages, type StoredMessage } from './message-documents';
import type { WamidKeys } from './wamid-keys';

/** The least time between two writes of wamid keys under load (idle, a key goes at once). */
const WAMID_KEY_SPACING_MS = 1_000;

interface Acceptance {
  message: Pick<StoredMessage, 'id' | 'company_id'>;
  wamid: string;
  now: Date;
  events: BrokerEvent[];
}

/** The write that records an acceptance, applied only while the message is still pending. */
function acceptanceUpdate({ message, wamid, now, events }: Acceptance) {
  const outbox = addToOutbox(events);
  return {
    filter: { _id: String(message.id), status: 'pending' as const },
    update: {
      $set: {
        wamid,
        status: 'sent' as const,
        'status_times.sent': now,
        lease_until: null,
        updated_at: now,
        ...outbox.set,
      },
      $push: { history: { status: 'sent', at: now, applied: true } },
      $addToSet: outbox.addToSet,
    },
  };
}

/**
 * The writes of an outbound send's life: stored pending under a lease, taken over when the
 * lease ran out, then accepted by the provider or refused.
 */
export function sendWrites(Messages: Messages, wamidKeys: WamidKeys) {
  const byId = findMessageById(Messages);

  // The driver alone on the hot path: every document and update is built here complete (as
  // mongoose would store it), and mongoose's casting of each was most of these writes' cost in
  // this process.
  const collection = stringKeyed(Messages);

  /**
   * Outbound messages stored pending, before their provider call: concurrent sends' inserts go
   * in one `insertMany`. Each is a new id from this process's block, so none can collide.
   */
  const pendingInserts = createWriteBatcher<StoredMessage>(async (messages) => {
    await collection.insertMany(messages, { ordered: false });
  });

  /**
   * The wamid keys of accepted messages, written after their acceptance and off the send's
   * path, many per write (one every `WAMID_KEY_SPACING_MS` under load). Nothing on the send or
   * status path waits for them: a status of ours names its message in its callback data and finds
   * it by id when the key is not there yet, and a lookup by wamid that misses the key falls back
   * to the message's own wamid and writes the key then. A failed write is left to those.
   */
  const wamidKeyWrites = createWriteBatcher<Acceptance>((items) => wamidKeys.rememberMany(items), {
    spacingMs: WAMID_KEY_SPACING_MS,
  });

  /**
   * Acceptances of concurrent sends in one command for all: the messages in one `bulkWrite`
   * (their wamid keys follow, see `wamidKeyWrites`). An acceptance whose message was no longer
   * pending matched nothing; which one is not told by the bulk result, so `accepted` reads them
   * back then.
   */
  const acceptances = createWriteBatcher<Acceptance & { matched?: boolean }>(async (items) => {
    const result = await collection.bulkWrite(
      items.map((item) => ({ updateOne: acceptanceUpdate(item) })),
      { ordered: false },
    );
    const allMatched = result.matchedCount === items.length;
    for (const item of items) {
      item.matched = allMatched ? true : undefined;
      wamidKeyWrites.add(item).catch(() => undefined);
    }
  });

  return {
    /**
     * Stores a new outbound message, pending, with other sends' messages in one write. Its id is
     * new (allocated for this send), so it cannot collide.
     */
    async insertPending(message: StoredMessage): Promise<void> {
      await pendingInserts.add(message);
    },

    /**
     * As `markAccepted`, written with other sends' acceptances in one command (their wamid keys
     * follow in the background). False when the message was no longer pending.
     */
    async accepted(
      message: Pick<StoredMessage, 'id' | 'company_id'>,
      wamid: string,
      now: Date,
      events: BrokerEvent[],
    ): Promise<boolean> {
      const item: Acceptance & { matched?: boolean } = { message, wamid, now, events };
      await acceptances.add(item);
      if (item.matched) return true;
      // Some acceptance in the batch matched nothing: this one did if its wamid is not stored.
      const current = await byId(message.id);
      return (
        current?.status === 'sent' &&
        current.wamid === wamid &&
        current.updated_at.getTime() === now.getTime()
      );
    },

    /** Resolves once the batched writes handed over so far are done. */
    drain: async () => {
      await Promise.all([pendingInserts.drain(), acceptances.drain()]);
      await wamidKeyWrites.drain();
    },

    /** Takes the send of a pending message, unless another attempt holds a live lease on it. */
    async claim(id: number, now: Date, leaseMs: number): Promise<StoredMessage | null> {
      return Messages.findOneAndUpdate(
        {
          _id: String(id),
          status: 'pending',
          $or: [{ lease_until: null }, { lease_until: op({ $lte: now }) }],
        },
        { $set: { lease_until: new Date(now.getTime() + leaseMs), updated_at: now } },
        { returnDocument: 'after' },
      )
        .lean<StoredMessage>()
        .exec();
    },

    /**
     * Pending sends whose lease ended before `before` (their process died mid-send), and those
     * of broker commands only if it ended before `commandsBefore` (their command is still coming
     * back, behind a queue).
     */
    interrupted(before: Date, commandsBefore: Date, limit: number): Promise<StoredMessage[]> {
      return Messages.find({
        status: 'pending',
        $or: [
          { lease_until: op({ $lt: before }), via_command: op({ $ne: true }) },
          { lease_until: op({ $lt: commandsBefore }) },
        ],
      })
        .limit(limit)
        .lean<StoredMessage[]>()
        .exec();
    },

    /** Lets another attempt take the send over at once (a command going back to the broker). */
    async releaseLease(id: number, now: Date): Promise<void> {
      await Messages.updateOne(
        { _id: String(id), status: 'pending' },
        { $set: { lease_until: now, updated_at: now } },
      );
    },

    /**
     * The provider accepted the message: it is sent, with its wamid and events, in one write by
     * `_id` and `status` (equality on indexed fields, an index lookup on PostgreSQL) that applies
     * only while it is pending. False when it was no longer pending (finished elsewhere).
     */
    async markAccepted(
      message: Pick<StoredMessage, 'id' | 'company_id'>,
      wamid: string,
      now: Date,
      events: BrokerEvent[],
    ): Promise<boolean> {
      // The key first: a status webhook can then always find the message by its key alone.
      await wamidKeys.remember({ wamid, id: message.id, company_id: message.company_id });
      const { filter, update } = acceptanceUpdate({ message, wamid, now, events });
      const { matchedCount } = await Messages.updateOne(filter, update);
      return matchedCount === 1;
    },

    /** The provider refused the message: it failed with the provider's error text (as markAccepted). */
    async markRefused(
      id: number,
      error: string,
      now: Date,
      events: BrokerEvent[],
    ): Promise<boolean> {
      const outbox = addToOutbox(events);
      const { matchedCount } = await Messages.updateOne(
        { _id: String(id), status: 'pending' },
        {
          $set: {
            status: 'failed',
            error,
            'status_times.failed': now,
            lease_until: null,
            updated_at: now,
            ...outbox.set,
          },
          $push: { history: { status: 'failed', at: now, applied: true } },
          $addToSet: outbox.addToSet,
        },
      );
      return matchedCount === 1;
    },
  };
}
