import type { BrokerEvent, MediaDescriptor } from '@switchboard/contracts';
import { addToOutbox, isDuplicateKeyError, newOutbox } from '@switchboard/service-kit';
import { hasRealWamid, type Messages, type NewMessage } from './message-documents';
import type { WamidKeys } from './wamid-keys';

/** The writes of a message received from a contact: stored once, then what became of its file. */
export function receivedWrites(Messages: Messages, wamidKeys: WamidKeys) {
  return {
    /**
     * Stores a message with its events; `duplicate` when its wamid is already stored. The wamid's
     * key is claimed first: its unique `_id` is what stores a provider message once (the
     * messages' own unique indexes must start with the shard key). A key claimed by a delivery
     * that died before storing its message is taken over once older than
     * `WAMID_CLAIM_TAKEOVER_MS`; younger, the other delivery may still be storing it, and this
     * one fails to be retried later.
     */
    async insert(message: NewMessage, events: BrokerEvent[]): Promise<'inserted' | 'duplicate'> {
      if (hasRealWamid(message) && (await wamidKeys.claim(message)) === 'duplicate')
        return 'duplicate';
      try {
        await Messages.create({
          history: [],
          status_times: {},
          ...message,
          _id: String(message.id),
          statuses_seen: [],
          ...newOutbox(events),
        });
      } catch (error) {
        if (isDuplicateKeyError(error)) return 'duplicate';
        throw error;
      }
      return 'inserted';
    },

    /**
     * An inbound file was fetched (or could not be): the message shows what became of it, and
     * its `message_received`, held until now so that it can say where the file is, is written.
     */
    async recordMedia(id: number, media: MediaDescriptor, events: BrokerEvent[], now: Date) {
      const outbox = addToOutbox(events);
      await Messages.updateOne(
        { _id: String(id) },
        { $set: { media, updated_at: now, ...outbox.set }, $addToSet: outbox.addToSet },
      );
    },

    /** The retention job removed an inbound file: the message says so and links nowhere. */
    async expireMedia(id: number, now: Date): Promise<void> {
      await Messages.updateOne(
        { _id: String(id) },
        { $set: { 'media.status': 'expired', 'media.url': null, updated_at: now } },
      );
    },
  };
}
