import mongoose, { Schema, type Connection } from 'mongoose';
import type {
  Audience,
  BrokerEvent,
  CampaignMessage,
  CampaignStatus,
  CampaignType,
  Plan,
  VariableSource,
} from '@switchboard/contracts';
import {
  addToOutbox,
  dropFormerOutboxIndex,
  findOwn,
  indexOutbox,
  newOutbox,
  outboxSchemaFields,
  outboxSource,
  type OutboxFields,
} from '@switchboard/service-kit';

/**
 * A campaign. `_id` is `String(id)`: every write after creation is by `_id` alone, the
 * local database's fast path. Bot campaigns (`type: "bot"`) have `keywords` and no audience; they
 * are never started, automated replies match inbound text against them.
 *
 * Starting is recorded step by step in `start_step` so that a process dying half-way leaves
 * enough to give back what it held: `claimed` (nothing held yet), `campaign_quota` (one campaign
 * of `quota_month`), `message_quota` (also `total_contacts` messages), then `status: started`;
 * `undoing` while the recovery of an abandoned start gives back what it held.
 */
export interface StoredCampaign extends OutboxFields {
  _id: string;
  id: number;
  company_id: number;
  /** The organization's plan when the campaign was made: a scheduled start has no request. */
  plan: Plan;
  plan_started_at: Date;
  name: string;
  type: CampaignType;
  status: CampaignStatus;
  message: CampaignMessage;
  variables: VariableSource[];
  audience: Audience | null;
  keywords: string[] | null;
  scheduled_at: Date | null;
  start_step: 'none' | 'claimed' | 'campaign_quota' | 'message_quota' | 'undoing';
  start_claimed_at: Date | null;
  quota_month: string | null;
  total_contacts: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  /** Recipients with an outcome (sent or failed): the campaign completes when all have one. */
  settled: number;
  /** Dispatch: the last contact id handed to messaging, how many, and whether all were. */
  cursor: number;
  dispatched: number;
  dispatch_done: boolean;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
}

const campaignSchema = new Schema<StoredCampaign>(
  {
    _id: { type: String, required: true },
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    plan: { type: String, required: true },
    plan_started_at: { type: Date, required: true },
    name: { type: String, required: true },
    type: { type: String, required: true },
    status: { type: String, required: true },
    message: { type: Schema.Types.Mixed, required: true },
    variables: { type: Schema.Types.Mixed, default: [] },
    audience: { type: Schema.Types.Mixed, default: null },
    keywords: { type: [String], default: null },
    scheduled_at: { type: Date, default: null },
    start_step: { type: String, required: true },
    start_claimed_at: { type: Date, default: null },
    quota_month: { type: String, default: null },
    total_contacts: { type: Number, required: true },
    sent: { type: Number, required: true },
    delivered: { type: Number, required: true },
    read: { type: Number, required: true },
    failed: { type: Number, required: true },
    settled: { type: Number, required: true },
    cursor: { type: Number, required: true },
    dispatched: { type: Number, required: true },
    dispatch_done: { type: Boolean, required: true },
    created_at: { type: Date, required: true },
    started_at: { type: Date, default: null },
    completed_at: { type: Date, default: null },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'campaigns', versionKey: false, minimize: false },
);
campaignSchema.index({ company_id: 1, id: 1 });
campaignSchema.index({ status: 1, scheduled_at: 1 });
indexOutbox(campaignSchema);

const op = <T extends object>(operator: T): T => mongoose.trusted(operator);

export type CampaignChanges = Partial<
  Omit<StoredCampaign, '_id' | 'id' | 'company_id' | 'pending_events' | 'pending_ids'>
>;

export function createCampaignStore(db: Connection) {
  const Campaigns = db.model<StoredCampaign>('Campaign', campaignSchema);

  /** Started regular campaigns, handed over or not, untouched since `before`. */
  const startedUntouched = (dispatch_done: boolean, before: Date, limit: number) =>
    Campaigns.find({
      status: 'started',
      type: 'regular',
      dispatch_done,
      updated_at: op({ $lt: before }),
    })
      .limit(limit)
      .lean<StoredCampaign[]>()
      .exec();

  return {
    async init() {
      await dropFormerOutboxIndex(Campaigns.collection);
      await Campaigns.init();
    },
    outbox: outboxSource('campaigns', Campaigns),

    async insert(campaign: Omit<StoredCampaign, keyof OutboxFields>): Promise<void> {
      await Campaigns.create({ ...campaign, ...newOutbox([]) });
    },

    /** The organization's campaign, by id (another organization's is never found). */
    find(company_id: number, id: number): Promise<StoredCampaign | null> {
      return findOwn(Campaigns, company_id, id);
    },

    findById(id: number): Promise<StoredCampaign | null> {
      return Campaigns.findById(String(id)).lean<StoredCampaign>().exec();
    },

    /** Campaigns by id, in one query (those that exist). */
    findManyByIds(ids: number[]): Promise<StoredCampaign[]> {
      return Campaigns.find({ _id: op({ $in: ids.map(String) }) })
        .lean<StoredCampaign[]>()
        .exec();
    },

    list(
      company_id: number,
      type?: CampaignType,
      page?: { skip: number; per_page: number },
    ): Promise<StoredCampaign[]> {
      const query = Campaigns.find({ company_id, ...(type ? { type } : {}) }).sort({ id: 1 });
      if (page) query.skip(page.skip).limit(page.per_page);
      return query.lean<StoredCampaign[]>().exec();
    },

    count(company_id: number, type?: CampaignType): Promise<number> {
      return Campaigns.countDocuments({ company_id, ...(type ? { type } : {}) }).exec();
    },

    /** Active bot campaigns of an organization (automated replies match their keywords). */
    findActiveBotCampaigns(company_id: number): Promise<StoredCampaign[]> {
      return Campaigns.find({ company_id, type: 'bot', status: op({ $ne: 'canceled' as const }) })
        .lean<StoredCampaign[]>()
        .exec();
    },

    /**
     * Changes a campaign only if it still matches `expect` (a status move, a start step, a
     * cursor), with events added to its outbox in the same write. True when it changed.
     */
    async update(
      id: number,
      expect: Record<string, unknown>,
      changes: CampaignChanges,
      events: BrokerEvent[] = [],
      inc: Partial<
        Record<'sent' | 'delivered' | 'read' | 'failed' | 'settled' | 'total_contacts', number>
      > = {},
    ): Promise<boolean> {
      const outbox = addToOutbox(events);
      const result = await Campaigns.updateOne(
        { _id: String(id), ...expect },
        {
          $set: { ...changes, ...outbox.set, updated_at: new Date() },
          ...(Object.keys(outbox.addToSet).length > 0 ? { $addToSet: outbox.addToSet } : {}),
          ...(Object.keys(inc).length > 0 ? { $inc: inc } : {}),
        },
      );
      return result.modifiedCount === 1;
    },

    /**
     * Adds progress to a campaign's counters and answers the campaign as that left it (null when
     * it is gone), in one command: the caller checks completion on what it gets back.
     */
    addProgress(
      id: number,
      inc: Partial<Record<'sent' | 'delivered' | 'read' | 'failed' | 'settled', number>>,
    ): Promise<StoredCampaign | null> {
      return Campaigns.findOneAndUpdate(
        { _id: String(id) },
        { $set: { updated_at: new Date() }, $inc: inc },
        { returnDocument: 'after' },
      )
        .lean<StoredCampaign>()
        .exec();
    },

    /** Forgets a start that did not finish (whatever step it reached); nothing is held any more. */
    async resetStart(id: number): Promise<void> {
      await Campaigns.updateOne(
        { _id: String(id), start_step: op({ $ne: 'none' as const }) },
        {
          $set: {
            start_step: 'none',
            start_claimed_at: null,
            total_contacts: 0,
            quota_month: null,
          },
        },
      );
    },

    /** Sets the progress counters to what the recipients say (a crash can leave a count behind). */
    async setCounters(
      id: number,
      counters: Record<'sent' | 'delivered' | 'read' | 'failed' | 'settled', number>,
    ): Promise<void> {
      await Campaigns.updateOne({ _id: String(id) }, { $set: counters });
    },

    /** Scheduled campaigns whose time has come. */
    due(now: Date, limit: number): Promise<StoredCampaign[]> {
      return Campaigns.find({ status: 'scheduled', scheduled_at: op({ $lte: now }) })
        .limit(limit)
        .lean<StoredCampaign[]>()
        .exec();
    },

    /** Started regular campaigns whose messages are not all handed to messaging yet (an API
     * campaign in use is started too, but has no audience to hand over), untouched since
     * `before`: a campaign another replica is handing over moves on with every page. */
    undispatched(before: Date, limit: number): Promise<StoredCampaign[]> {
      return startedUntouched(false, before, limit);
    },

    /** Started campaigns all handed over but not complete, untouched since `before`. */
    stalled(before: Date, limit: number): Promise<StoredCampaign[]> {
      return startedUntouched(true, before, limit);
    },

    /** Starts a process left half-way before `before` (it died holding quota, or nothing). */
    abandonedStarts(before: Date, limit: number): Promise<StoredCampaign[]> {
      return Campaigns.find({
        start_step: op({ $ne: 'none' as const }),
        status: op({ $in: ['draft' as const, 'scheduled' as const] }),
        start_claimed_at: op({ $lt: before }),
      })
        .limit(limit)
        .lean<StoredCampaign[]>()
        .exec();
    },

    async delete(id: number): Promise<void> {
      await Campaigns.deleteOne({ _id: String(id) });
    },
  };
}

export type CampaignStore = ReturnType<typeof createCampaignStore>;
