import { Schema, type Connection } from 'mongoose';
import { isDuplicateKeyError } from '@switchboard/service-kit';
import { onlyDuplicateKeyErrors } from '../mongo-helpers';
import type { NewMessage, StoredMessage } from './message-documents';

/** A wamid claimed this long ago without its message stored was claimed by a delivery that died. */
const WAMID_CLAIM_TAKEOVER_MS = 60_000;

/** `_id: wamid` → the message: status webhooks find their message without a scan. */
interface WamidKey {
  _id: string;
  message_id: number;
  company_id: number;
  /** When an inbound message claimed it (absent on keys of sent messages). */
  claimed_at?: Date;
}
const wamidKeySchema = new Schema<WamidKey>(
  {
    _id: { type: String, required: true },
    message_id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    claimed_at: { type: Date },
  },
  { collection: 'wamid_keys', versionKey: false },
);

/**
 * The wamid keys: one document per provider id, whose unique `_id` is what stores a provider
 * message once (the messages' own unique indexes must start with the shard key), and how a
 * status finds its message without a scan.
 */
export function createWamidKeys(
  db: Connection,
  byId: (id: number) => Promise<StoredMessage | null>,
) {
  const WamidKeys = db.model<WamidKey>('WamidKey', wamidKeySchema);

  return {
    init: () => WamidKeys.init(),

    /** The id of the message a provider id names; null when not (yet) known. */
    async messageIdOf(wamid: string): Promise<number | null> {
      const key = await WamidKeys.findById(wamid).lean<WamidKey>().exec();
      return key ? key.message_id : null;
    },

    /**
     * Claims a received message's wamid before it is stored; `duplicate` when its message is
     * stored already. A key claimed by a delivery that died before storing its message is taken
     * over once older than `WAMID_CLAIM_TAKEOVER_MS`; younger, the other delivery may still be
     * storing it, and this one fails to be retried later.
     */
    async claim(message: NewMessage): Promise<'claimed' | 'duplicate'> {
      const claimed_at = new Date();
      try {
        await WamidKeys.create({
          _id: message.wamid,
          message_id: message.id,
          company_id: message.company_id,
          claimed_at,
        });
        return 'claimed';
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      const key = await WamidKeys.findById(message.wamid).lean<WamidKey>().exec();
      if (!key || key.message_id === message.id) return 'claimed';
      if (await byId(key.message_id)) return 'duplicate';
      const age = claimed_at.getTime() - (key.claimed_at?.getTime() ?? 0);
      if (age < WAMID_CLAIM_TAKEOVER_MS) {
        // A concurrent delivery stores its message right after its claim: give it a moment.
        for (let wait = 0; wait < 5; wait++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          if (await byId(key.message_id)) return 'duplicate';
        }
        throw new Error(
          `wamid ${message.wamid} is being stored by another delivery; retried later`,
        );
      }
      const taken = await WamidKeys.updateOne(
        { _id: message.wamid, message_id: key.message_id },
        { $set: { message_id: message.id, claimed_at } },
      );
      return taken.modifiedCount === 1 ? 'claimed' : 'duplicate';
    },

    /** An insert, not an upsert: on the local database an insert costs the same at any size. */
    async remember(message: Pick<StoredMessage, 'wamid' | 'id' | 'company_id'>) {
      await WamidKeys.create({
        _id: message.wamid,
        message_id: message.id,
        company_id: message.company_id,
      }).catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
    },

    /**
     * The keys of several accepted messages in one `insertMany`; a key stored before (by a status)
     * is kept.
     */
    async rememberMany(
      messages: { wamid: string; message: Pick<StoredMessage, 'id' | 'company_id'> }[],
    ): Promise<void> {
      const keys = messages.map(({ message, wamid }) => ({
        _id: wamid,
        message_id: message.id,
        company_id: message.company_id,
      }));
      try {
        await WamidKeys.insertMany(keys, { ordered: false, lean: true });
      } catch (error) {
        if (!isDuplicateKeyError(error) && !onlyDuplicateKeyErrors(error)) throw error;
      }
    },
  };
}

export type WamidKeys = ReturnType<typeof createWamidKeys>;
