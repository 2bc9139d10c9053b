import { Schema, type Connection } from 'mongoose';
import { EVENT_NAMES, type EventName } from '@switchboard/contracts';
import { createTtlCache, loadThrough, nextId } from '@switchboard/service-kit';

export interface StoredWebhook {
  _id: number;
  company_id: number;
  name: string;
  url: string;
  events: EventName[];
  active: boolean;
  /** The signing secret, sealed (see SecretBox); never stored in the clear. */
  secret_sealed: string;
  secret_last4: string;
  /**
   * Bumped on every pause: a delivery remembers the generation it was created in, so a pause
   * stops everything created before it, even after the webhook is activated again.
   */
  generation: number;
  created_at: Date;
  updated_at: Date;
}

const webhookSchema = new Schema<StoredWebhook>(
  {
    _id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    name: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], enum: EVENT_NAMES, required: true },
    active: { type: Boolean, required: true },
    secret_sealed: { type: String, required: true },
    secret_last4: { type: String, required: true },
    generation: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'webhooks', versionKey: false, _id: false },
);
// The consumer's question for every event: the organization's active webhooks for this name.
webhookSchema.index({ company_id: 1, events: 1, active: 1 });

export type WebhookChanges = Partial<Pick<StoredWebhook, 'name' | 'url' | 'events'>>;

/**
 * Webhooks, scoped to their organization. Reads on the delivery path go through a short cache
 * that this process's own writes clear at once; a change made through another replica is seen
 * within `cacheTtlMs`.
 */
export function createWebhookStore(db: Connection, options: { cacheTtlMs: number }) {
  const Webhooks = db.model<StoredWebhook>('Webhook', webhookSchema);
  // Read-through: every delivery attempt and every event asks for webhooks, by id or company.
  const cacheOptions = { ttlMs: options.cacheTtlMs, maxEntries: 10_000 };
  const byId = createTtlCache<number, Promise<StoredWebhook | null>>(cacheOptions);
  const byCompany = createTtlCache<number, Promise<StoredWebhook[]>>(cacheOptions);
  const changed = (webhook: { _id: number; company_id: number }) => {
    byId.delete(webhook._id);
    byCompany.delete(webhook.company_id);
  };

  return {
    init: () => Webhooks.init(),

    async insert(fields: Omit<StoredWebhook, '_id'>): Promise<StoredWebhook> {
      const webhook = { _id: await nextId(db, 'webhooks'), ...fields };
      await Webhooks.create(webhook);
      changed(webhook);
      return webhook;
    },

    listByCompany(company_id: number): Promise<StoredWebhook[]> {
      return Webhooks.find({ company_id }).sort({ _id: 1 }).lean<StoredWebhook[]>().exec();
    },

    /** Scoped to the organization: another organization's id is simply not found. */
    find(company_id: number, id: number): Promise<StoredWebhook | null> {
      return Webhooks.findOne({ _id: id, company_id }).lean<StoredWebhook>().exec();
    },

    /** For the delivery path: cached. */
    findById(id: number): Promise<StoredWebhook | null> {
      return loadThrough(byId, id, () => Webhooks.findById(id).lean<StoredWebhook>().exec());
    },

    /** The organization's active webhooks subscribed to `event`; for the event consumer, cached. */
    async findSubscribed(company_id: number, event: EventName): Promise<StoredWebhook[]> {
      const all = await loadThrough(byCompany, company_id, () =>
        Webhooks.find({ company_id }).lean<StoredWebhook[]>().exec(),
      );
      return all.filter((webhook) => webhook.active && webhook.events.includes(event));
    },

    async update(
      company_id: number,
      id: number,
      set: Partial<StoredWebhook>,
      extra: { whenActive?: boolean; incrementGeneration?: boolean } = {},
    ): Promise<StoredWebhook | null> {
      const filter: Record<string, unknown> = { _id: id, company_id };
      if (extra.whenActive !== undefined) filter.active = extra.whenActive;
      const update: Record<string, unknown> = { $set: set };
      if (extra.incrementGeneration) update.$inc = { generation: 1 };
      // No projection: FerretDB does not implement `fields` in findAndModify.
      const updated = await Webhooks.findOneAndUpdate(filter, update, { returnDocument: 'after' })
        .lean<StoredWebhook>()
        .exec();
      changed({ _id: id, company_id });
      return updated;
    },

    /** A 410 from the receiver pauses the webhook, unless it was changed in the meantime. */
    async pauseGeneration(webhook: StoredWebhook, now: Date): Promise<boolean> {
      const paused = await Webhooks.findOneAndUpdate(
        { _id: webhook._id, generation: webhook.generation, active: true },
        { $set: { active: false, updated_at: now }, $inc: { generation: 1 } },
        { returnDocument: 'after' },
      )
        .lean<StoredWebhook>()
        .exec();
      changed(webhook);
      return paused !== null;
    },

    async delete(company_id: number, id: number): Promise<boolean> {
      const result = await Webhooks.deleteOne({ _id: id, company_id });
      changed({ _id: id, company_id });
      return result.deletedCount === 1;
    },
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
