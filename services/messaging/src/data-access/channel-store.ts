import { Schema, type Connection } from 'mongoose';

/** An organization's provider account: where to send and how to verify what comes back. */
export interface Channel {
  company_id: number;
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
}

const channelSchema = new Schema<Channel>(
  {
    company_id: { type: Number, required: true, unique: true },
    inbound_token: { type: String, required: true, unique: true },
    provider_base_url: { type: String, required: true },
    api_version: { type: String, required: true },
    phone_number_id: { type: String, required: true, unique: true },
    waba_id: { type: String, required: true },
    access_token: { type: String, required: true },
    app_secret: { type: String, required: true },
    verify_token: { type: String, required: true },
    display_phone_number: { type: String, required: true },
    verified_name: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'channels', versionKey: false },
);

type ChannelUpdate = Partial<Omit<Channel, 'company_id' | 'inbound_token' | 'created_at'>>;

export function createChannelStore(db: Connection) {
  const Channels = db.model('Channel', channelSchema);
  const strip = <T extends { _id?: unknown }>(doc: T | null) => {
    if (!doc) return null;
    const { _id, ...rest } = doc;
    return rest as unknown as Channel;
  };

  return {
    init: () => Channels.init(),

    /** Inserts, or returns the channel the organization already has (provisioning is idempotent). */
    async insertOnce(channel: Channel): Promise<Channel> {
      try {
        await Channels.create(channel);
        return channel;
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error;
        const existing = await this.findByCompany(channel.company_id);
        if (!existing) throw error;
        return existing;
      }
    },

    async findByCompany(company_id: number): Promise<Channel | null> {
      return strip(await Channels.findOne({ company_id }).lean<Channel & { _id: unknown }>());
    },

    /** Every organization with a channel (the template sync visits each). */
    async companyIds(): Promise<number[]> {
      return (await Channels.distinct('company_id')) as number[];
    },

    async findByInboundToken(inbound_token: string): Promise<Channel | null> {
      return strip(await Channels.findOne({ inbound_token }).lean<Channel & { _id: unknown }>());
    },

    async update(company_id: number, changes: ChannelUpdate, now: Date): Promise<Channel | null> {
      const updated = await Channels.findOneAndUpdate(
        { company_id },
        { $set: { ...changes, updated_at: now } },
        { returnDocument: 'after' },
      ).lean<Channel & { _id: unknown }>();
      return strip(updated);
    },
  };
}

export type ChannelStore = ReturnType<typeof createChannelStore>;
