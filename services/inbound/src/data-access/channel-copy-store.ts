import { Schema, type Connection } from 'mongoose';
import type { InboundChannel } from '@switchboard/contracts';

export interface ChannelCopy extends InboundChannel {
  _id: string; // the inbound token
  fetched_at: Date;
}

const channelCopySchema = new Schema<ChannelCopy>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    app_secret: { type: String, required: true },
    verify_token: { type: String, required: true },
    phone_number_id: { type: String, required: true },
    waba_id: { type: String, required: true },
    fetched_at: { type: Date, required: true },
  },
  { collection: 'channel_copies', versionKey: false },
);

/**
 * The channels inbound has seen, as messaging last described them: lets inbound keep verifying
 * and accepting webhooks while messaging is down. Keyed by the inbound token (a string `_id`,
 * the one lookup FerretDB serves without a scan).
 */
export function createChannelCopyStore(db: Connection) {
  const Copies = db.model('ChannelCopy', channelCopySchema);
  return {
    find: (token: string) => Copies.findById(token).lean<ChannelCopy>().exec(),
    async save(token: string, channel: InboundChannel, now: Date): Promise<void> {
      await Copies.replaceOne(
        { _id: token },
        { _id: token, ...channel, fetched_at: now },
        { upsert: true },
      );
    },
    async remove(token: string): Promise<void> {
      await Copies.deleteOne({ _id: token });
    },
  };
}

export type ChannelCopyStore = ReturnType<typeof createChannelCopyStore>;
