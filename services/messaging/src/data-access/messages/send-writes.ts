import type { BrokerEvent } from '@switchboard/contracts';
import { addToOutbox } from '@switchboard/service-kit';
import { op } from '../mongo-helpers';
import { createWriteBatcher } from '../write-batcher';
import { findMessageById, type Messages, type StoredMessage } from './message-documents';
import type { WamidKeys } from './wamid-keys';

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

  /**
   * Outbound messages stored pending, before their provider call: concurrent sends' inserts go
   * in one `insertMany`. Each is a new id from this process's block, so none can collide.
   */
  const pendingInserts = createWriteBatcher<StoredMessage>(async (messages) => {
    await Messages.insertMany(messages, { ordered: false, lean: true });
  });

  /**
   * Acceptances of concurrent sends in two commands for all: their wamid keys in one
   * `insertMany` (first, so that a status webhook always finds a sent message by its key), then
   * the messages in one `bulkWrite`. An acceptance whose message was no longer pending matched
   * nothing; which one is not told by the bulk result, so `accepted` reads them back then.
   */
  const acceptances = createWriteBatcher<Acceptance & { matched?: boolean }>(async (items) => {
    await wamidKeys.rememberMany(items);
    const result = await Messages.bulkWrite(
      items.map((item) => ({ updateOne: acceptanceUpdate(item) })),
      { ordered: false },
    );
    const allMatched = result.matchedCount === items.length;
    for (const item of items) item.matched = allMatched ? true : undefined;
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
     * As `markAccepted`, written with other sends' acceptances (one command for their wamid keys,
     * one for the messages). False when the message was no longer pending.
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
    drain: () => Promise.all([pendingInserts.drain(), acceptances.drain()]),

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
