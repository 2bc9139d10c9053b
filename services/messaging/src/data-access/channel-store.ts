import mongoose, { Schema, type Connection } from 'mongoose';
import {
  dropIndexIfPresent,
  isDuplicateKeyError,
  type ResealOutcome,
  type SecretBox,
} from '@switchboard/service-kit';
import { CHANNEL_CREDENTIALS, resealChannels } from './reseal-channels';

/** An organization's provider account: where to send and how to verify what comes back. */
export interface Channel {
  company_id: number;
  /**
   * The number's place among the organization's numbers: 0 is the first, made with the
   * organization, and the default that sends use unless they name another number.
   */
  slot: number;
  /** Messages per second this number sends at most; the provider's standard rate when absent. */
  send_rate_per_second?: number;
  /** Unguessable path segment of the inbound webhook URL; attributes a webhook to its organization. */
  inbound_token: string;
  provider_base_url: string;
  api_version: string;
  phone_number_id: string;
  waba_id: string;
  access_token: string;
  app_secret: string;
  verify_token: string;
  display_phone_number: string;
  verified_name: string;
  created_at: Date;
  updated_at: Date;
  /** What the provider's latest account notice said of the account; absent until one came. */
  account_notice?: AccountNotice;
}

/** An account decision as a provider notice gave it (account review, ban, restriction). */
export interface AccountNotice {
  decision: string;
  account_status: string;
  /** The review decision itself when the notice was a review (APPROVED, REJECTED, …). */
  review_status: string | null;
  /** When inbound received the notice: an older notice never overwrites a newer one. */
  at: Date;
}

/** The credentials of a channel: sealed at rest (see SecretBox), never stored in the clear. */
type Credential = (typeof CHANNEL_CREDENTIALS)[number];

/**
 * A channel as stored: each credential as `<name>_sealed`, and the inbound token also as a keyed
 * digest (`inbound_token_digest`, indexed) because inbound looks a channel up by it.
 */
export type ChannelDocument = Omit<Channel, Credential> & {
  [K in `${Credential}_sealed`]: string;
} & { inbound_token_digest: string };

const channelSchema = new Schema<ChannelDocument>(
  {
    company_id: { type: Number, required: true },
    slot: { type: Number, required: true },
    send_rate_per_second: { type: Number, required: false },
    // Not unique: documents written before sealing lack it until the start-up migration; the
    // digest of 32 random bytes does not collide.
    inbound_token_digest: { type: String, required: true, index: true },
    inbound_token_sealed: { type: String, required: true },
    provider_base_url: { type: String, required: true },
    api_version: { type: String, required: true },
    phone_number_id: { type: String, required: true, unique: true },
    waba_id: { type: String, required: true },
    access_token_sealed: { type: String, required: true },
    app_secret_sealed: { type: String, required: true },
    verify_token_sealed: { type: String, required: true },
    display_phone_number: { type: String, required: true },
    verified_name: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    account_notice: { type: Schema.Types.Mixed, required: false },
  },
  { collection: 'channels', versionKey: false },
);
// One document per number; provisioning the first (slot 0) is idempotent through this index, and
// lookups by organization use its prefix.
channelSchema.index({ company_id: 1, slot: 1 }, { unique: true });

type ChannelUpdate = Partial<
  Omit<Channel, 'company_id' | 'slot' | 'inbound_token' | 'created_at' | 'account_notice'>
>;

export function createChannelStore(db: Connection, box: SecretBox) {
  const Channels = db.model('Channel', channelSchema);
  const open = (doc: (ChannelDocument & { _id?: unknown }) | null): Channel | null => {
    if (!doc) return null;
    const {
      _id,
      inbound_token_digest: _digest,
      inbound_token_sealed,
      access_token_sealed,
      app_secret_sealed,
      verify_token_sealed,
      ...rest
    } = doc;
    return {
      ...rest,
      inbound_token: box.open(inbound_token_sealed),
      access_token: box.open(access_token_sealed),
      app_secret: box.open(app_secret_sealed),
      verify_token: box.open(verify_token_sealed),
    };
  };
  const sealChanges = (changes: ChannelUpdate) => {
    const sealed: Record<string, unknown> = { ...changes };
    for (const name of CHANNEL_CREDENTIALS) {
      const value = sealed[name];
      if (typeof value !== 'string') continue;
      delete sealed[name];
      sealed[`${name}_sealed`] = box.seal(value);
    }
    return sealed;
  };

  return {
    /**
     * Indexes, then the credentials of documents written in clear (or sealed with a key that is
     * no longer current) sealed with the current key.
     */
    async init(): Promise<ResealOutcome> {
      await dropIndexIfPresent(Channels.collection, 'inbound_token_1');
      // Organizations had one channel, unique by company: it becomes their first number.
      await dropIndexIfPresent(Channels.collection, 'company_id_1');
      await Channels.collection.updateMany({ slot: { $exists: false } }, { $set: { slot: 0 } });
      await Channels.init();
      return resealChannels(Channels.collection, box);
    },

    /** Re-seals what is in clear or under an older key; returns how many channels changed. */
    reseal: () => resealChannels(Channels.collection, box),

    /**
     * Inserts, or returns the channel already in the organization's slot (provisioning the first
     * number is idempotent).
     */
    async insertOnce(channel: Channel): Promise<Channel> {
      try {
        await this.insertNew(channel);
        return channel;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const existing = (await this.listByCompany(channel.company_id)).find(
          (one) => one.slot === channel.slot,
        );
        if (!existing) throw error;
        return existing;
      }
    },

    /** Inserts a further number; a duplicate key (slot or phone_number_id taken) is thrown. */
    async insertNew(channel: Channel): Promise<void> {
      const { inbound_token, access_token, app_secret, verify_token, ...rest } = channel;
      await Channels.create({
        ...rest,
        ...sealChanges({ access_token, app_secret, verify_token }),
        inbound_token_sealed: box.seal(inbound_token),
        inbound_token_digest: box.digest(inbound_token),
      });
    },

    /** Removes a further number (never the first): an addition the provider refused. */
    async removeNumber(company_id: number, slot: number): Promise<void> {
      if (slot === 0) return;
      await Channels.deleteOne({ company_id, slot });
    },

    async findByPhoneNumberId(phone_number_id: string): Promise<Channel | null> {
      return open(await Channels.findOne({ phone_number_id }).lean<ChannelDocument>());
    },

    /** The organization's first (default) number. */
    async findByCompany(company_id: number): Promise<Channel | null> {
      return open(await Channels.findOne({ company_id, slot: 0 }).lean<ChannelDocument>());
    },

    /** All the organization's numbers, the first (default) first. */
    async listByCompany(company_id: number): Promise<Channel[]> {
      const found = await Channels.find({ company_id }).sort({ slot: 1 }).lean<ChannelDocument[]>();
      return found.map((doc) => open(doc)!);
    },

    /** Every organization with a channel (the template sync visits each). */
    async companyIds(): Promise<number[]> {
      return (await Channels.distinct('company_id')) as number[];
    },

    /**
     * By the token's digest, under the current key first, then under each older key while a
     * rotation is under way: one equality lookup each, which the document database serves from
     * its index (an `$in` over the digests is a scan on FerretDB: 77 ms against 2 ms at 1,000
     * channels).
     */
    async findByInboundToken(inbound_token: string): Promise<Channel | null> {
      for (const digest of box.digests(inbound_token)) {
        const found = await Channels.findOne({
          inbound_token_digest: digest,
        }).lean<ChannelDocument>();
        if (found) return open(found);
      }
      return null;
    },

    /** Keeps `notice` unless the stored one is newer; true when it was kept. */
    async noteAccount(company_id: number, notice: AccountNotice): Promise<boolean> {
      const result = await Channels.updateOne(
        {
          company_id,
          slot: 0,
          $or: [
            { account_notice: mongoose.trusted({ $exists: false }) },
            { 'account_notice.at': mongoose.trusted({ $lte: notice.at }) },
          ],
        },
        { $set: { account_notice: notice } },
      );
      return result.modifiedCount === 1;
    },

    /** The latest account notice, read fresh: every replica answers it as soon as it is stored. */
    async accountNotice(company_id: number): Promise<AccountNotice | null> {
      const found = await Channels.findOne({ company_id, slot: 0 })
        .select({ account_notice: 1 })
        .lean<{ account_notice?: AccountNotice }>();
      return found?.account_notice ?? null;
    },

    /** Changes one number of the organization: the first unless `slot` names another. */
    async update(
      company_id: number,
      changes: ChannelUpdate,
      now: Date,
      slot = 0,
    ): Promise<Channel | null> {
      const updated = await Channels.findOneAndUpdate(
        { company_id, slot },
        { $set: { ...sealChanges(changes), updated_at: now } },
        { returnDocument: 'after' },
      ).lean<ChannelDocument>();
      return open(updated);
    },
  };
}

export type ChannelStore = ReturnType<typeof createChannelStore>;
