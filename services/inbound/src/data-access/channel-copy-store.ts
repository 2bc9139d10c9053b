import mongoose, { Schema, type Connection } from 'mongoose';
import type { InboundChannel } from '@switchboard/contracts';
import { sealedWithOlderKey, type ResealOutcome, type SecretBox } from '@switchboard/service-kit';

/** A copy as stored: keyed by the inbound token's digest, its secrets sealed (see SecretBox). */
interface ChannelCopyDocument extends Omit<InboundChannel, 'app_secret' | 'verify_token'> {
  _id: string;
  app_secret_sealed: string;
  verify_token_sealed: string;
  fetched_at: Date;
}

const channelCopySchema = new Schema<ChannelCopyDocument>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    app_secret_sealed: { type: String, required: true },
    verify_token_sealed: { type: String, required: true },
    phone_number_id: { type: String, required: true },
    waba_id: { type: String, required: true },
    fetched_at: { type: Date, required: true },
  },
  { collection: 'channel_copies', versionKey: false },
);

/**
 * The channels inbound has seen, as messaging last described them: lets inbound keep verifying
 * and accepting webhooks while messaging is down. Keyed by the inbound token's keyed digest (a
 * string `_id`, the one lookup FerretDB serves without a scan), so the copy does not hold the
 * token itself; the secrets are sealed.
 */
export function createChannelCopyStore(db: Connection, box: SecretBox) {
  const Copies = db.model('ChannelCopy', channelCopySchema);

  /**
   * Copies written before sealing (keyed by the token itself, secrets in clear) move to the
   * sealed shape; copies sealed with an older key are dropped (the digest they are keyed by
   * cannot be made again without the token; the next lookup through messaging writes them anew).
   * Safe to run on two replicas at once: each step is an upsert or a conditional delete.
   */
  async function reseal(): Promise<ResealOutcome> {
    const outcome: ResealOutcome = { resealed: 0, unreadable: 0 };
    const clear = await Copies.collection.find({ app_secret: { $exists: true } }).toArray();
    for (const old of clear) {
      const token = String(old._id);
      await save(token, old as unknown as InboundChannel, old.fetched_at as Date);
      const removed = await Copies.collection.deleteOne({
        _id: old._id,
        app_secret: { $exists: true },
      });
      outcome.resealed += removed.deletedCount;
    }
    const stale = await Copies.collection.deleteMany({
      app_secret_sealed: sealedWithOlderKey(box),
    });
    outcome.resealed += stale.deletedCount;
    return outcome;
  }

  async function save(token: string, channel: InboundChannel, now: Date): Promise<void> {
    const { app_secret, verify_token, company_id, phone_number_id, waba_id } = channel;
    const _id = box.digest(token);
    await Copies.replaceOne(
      { _id },
      {
        _id,
        company_id,
        phone_number_id,
        waba_id,
        app_secret_sealed: box.seal(app_secret),
        verify_token_sealed: box.seal(verify_token),
        fetched_at: now,
      },
      { upsert: true },
    );
  }

  return {
    reseal,
    save,
    async find(token: string): Promise<InboundChannel | null> {
      // One `_id` lookup per key, current first (an `$in` is a scan on FerretDB).
      let copy: ChannelCopyDocument | null = null;
      for (const digest of box.digests(token)) {
        copy = await Copies.findById(digest).lean<ChannelCopyDocument>().exec();
        if (copy) break;
      }
      if (!copy) return null;
      return {
        company_id: copy.company_id,
        phone_number_id: copy.phone_number_id,
        waba_id: copy.waba_id,
        app_secret: box.open(copy.app_secret_sealed),
        verify_token: box.open(copy.verify_token_sealed),
      };
    },
    async remove(token: string): Promise<void> {
      await Copies.deleteMany({ _id: mongoose.trusted({ $in: box.digests(token) }) });
    },
  };
}

export type ChannelCopyStore = ReturnType<typeof createChannelCopyStore>;
