import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import type { FlowStep } from '@switchboard/contracts';
import { findOwn, findPage } from '@switchboard/service-kit';

/**
 * A flow. `_id` is `String(id)`; every lookup by id checks the organization.
 * `trigger_keys` are the triggers normalized (automation/normalize-text.ts), what inbound text
 * is compared with.
 */
export interface StoredFlow {
  _id: string;
  id: number;
  company_id: number;
  name: string;
  triggers: string[];
  trigger_keys: string[];
  start_step: string;
  steps: FlowStep[];
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

const flowSchema = new Schema<StoredFlow>(
  {
    _id: { type: String, required: true },
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    name: { type: String, required: true },
    triggers: { type: [String], required: true },
    trigger_keys: { type: [String], required: true },
    start_step: { type: String, required: true },
    steps: { type: Schema.Types.Mixed, required: true },
    active: { type: Boolean, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'flows', versionKey: false, minimize: false },
);
flowSchema.index({ company_id: 1, id: 1 });
flowSchema.index({ company_id: 1, trigger_keys: 1 });

const op = <T extends object>(operator: T): T => mongoose.trusted(operator);

export type FlowChanges = Partial<Omit<StoredFlow, '_id' | 'id' | 'company_id' | 'created_at'>>;

export function createFlowStore(db: Connection) {
  // A test builds a second store on the service's own connection: the model is compiled once.
  const Flows =
    (db.models.Flow as Model<StoredFlow> | undefined) ?? db.model<StoredFlow>('Flow', flowSchema);

  return {
    init: () => Flows.init(),

    async insert(flow: StoredFlow): Promise<void> {
      await Flows.create(flow);
    },

    /** The organization's flow, by id (another organization's is never found). */
    find(company_id: number, id: number): Promise<StoredFlow | null> {
      return findOwn(Flows, company_id, id);
    },

    async page(
      company_id: number,
      page: number,
      per_page: number,
    ): Promise<{ flows: StoredFlow[]; total: number }> {
      const { records, total } = await findPage(
        Flows,
        { company_id },
        (page - 1) * per_page,
        per_page,
      );
      return { flows: records, total };
    },

    /** The active flows of the organization with one of these trigger keys, oldest first. */
    activeWithTriggers(company_id: number, keys: string[]): Promise<StoredFlow[]> {
      return Flows.find({ company_id, active: true, trigger_keys: op({ $in: keys }) })
        .sort({ id: 1 })
        .lean<StoredFlow[]>()
        .exec();
    },

    async update(company_id: number, id: number, changes: FlowChanges): Promise<StoredFlow | null> {
      return Flows.findOneAndUpdate(
        { _id: String(id), company_id },
        { $set: changes },
        { returnDocument: 'after' },
      )
        .lean<StoredFlow>()
        .exec();
    },

    async delete(company_id: number, id: number): Promise<boolean> {
      const result = await Flows.deleteOne({ _id: String(id), company_id });
      return result.deletedCount === 1;
    },
  };
}

export type FlowStore = ReturnType<typeof createFlowStore>;
