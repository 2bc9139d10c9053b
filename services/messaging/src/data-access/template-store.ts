import { isDuplicateKeyError } from '@switchboard/service-kit';
import { Schema, type Connection } from 'mongoose';
import { op } from './mongo-helpers';

/**
 * A message template of one organization. `_id` is `<company>:<name>:<language>`: the
 * provider keeps one template per name and language, and a string `_id` is the local database's
 * fast path for the lookup every template send makes.
 */
export interface StoredTemplate {
  _id: string;
  id: number;
  company_id: number;
  provider_id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  rejection_reason: string | null;
  quality_score: string | null;
  parameter_format: 'POSITIONAL' | 'NAMED';
  /** The components as submitted, as JSON: examples hold keys the database may not take. */
  components_json: string;
  /**
   * When the provider decided the current status (its webhook's entry time, or when a sync read
   * it): an older decision arriving late does not overwrite a newer one.
   */
  status_at: Date;
  created_at: Date;
  updated_at: Date;
}

const templateSchema = new Schema<StoredTemplate>(
  {
    _id: { type: String, required: true },
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    provider_id: { type: String, required: true },
    name: { type: String, required: true },
    language: { type: String, required: true },
    category: { type: String, required: true },
    status: { type: String, required: true },
    rejection_reason: { type: String, default: null },
    quality_score: { type: String, default: null },
    parameter_format: { type: String, required: true },
    components_json: { type: String, required: true },
    status_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'templates', versionKey: false },
);
templateSchema.index({ company_id: 1, name: 1 });
templateSchema.index({ provider_id: 1 });

export const templateKey = (company_id: number, name: string, language: string): string =>
  `${company_id}:${name}:${language}`;

export interface TemplateDecision {
  status?: string;
  rejection_reason?: string | null;
  category?: string;
  quality_score?: string;
  at: Date;
}

export function createTemplateStore(db: Connection) {
  const Templates = db.model<StoredTemplate>('Template', templateSchema);

  return {
    init: () => Templates.init(),

    /** 'duplicate' when the organization already has this name and language. */
    async insert(template: StoredTemplate): Promise<'inserted' | 'duplicate'> {
      try {
        await Templates.create(template);
        return 'inserted';
      } catch (error) {
        if (isDuplicateKeyError(error)) return 'duplicate';
        throw error;
      }
    },

    find(company_id: number, name: string, language: string): Promise<StoredTemplate | null> {
      return Templates.findById(templateKey(company_id, name, language))
        .lean<StoredTemplate>()
        .exec();
    },

    list(company_id: number, filter: { status?: string; name?: string } = {}) {
      return Templates.find({ company_id, ...filter })
        .sort({ id: 1 })
        .lean<StoredTemplate[]>()
        .exec();
    },

    findByProviderId(company_id: number, provider_id: string): Promise<StoredTemplate | null> {
      return Templates.findOne({ company_id, provider_id }).lean<StoredTemplate>().exec();
    },

    /**
     * Applies a provider decision unless a newer one is stored. Category and quality have no
     * order of their own and follow the same rule. True when the template changed.
     */
    async applyDecision(key: string, decision: TemplateDecision): Promise<boolean> {
      const set: Record<string, unknown> = { updated_at: new Date(), status_at: decision.at };
      if (decision.status !== undefined) set.status = decision.status;
      if (decision.rejection_reason !== undefined) set.rejection_reason = decision.rejection_reason;
      if (decision.category !== undefined) set.category = decision.category;
      if (decision.quality_score !== undefined) set.quality_score = decision.quality_score;
      const result = await Templates.updateOne(
        { _id: key, status_at: op({ $lte: decision.at }) },
        { $set: set },
      );
      return result.modifiedCount === 1;
    },

    async delete(keys: string[]): Promise<void> {
      if (keys.length > 0) await Templates.deleteMany({ _id: op({ $in: keys }) });
    },
  };
}

export type TemplateStore = ReturnType<typeof createTemplateStore>;
