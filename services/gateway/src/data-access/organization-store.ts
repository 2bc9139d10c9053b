import { Schema, type Connection } from 'mongoose';
import { PLAN_NAMES, type Plan } from '@switchboard/contracts';
import { nextId } from '@switchboard/service-kit';

export interface Organization {
  company_id: number;
  name: string;
  plan: Plan;
  plan_started_at: Date;
  created_at: Date;
}

export interface ApiToken {
  token_id: string;
  company_id: number;
  token_hash: string;
  created_at: Date;
  revoked_at: Date | null;
  /** The label its owner gave it (tokens older than names have none). */
  name?: string;
  /** The last four characters, to tell tokens apart in a list; nothing to guess the rest by. */
  hint?: string;
  /** Moved at most once a minute, when a gateway reads the token from the database. */
  last_used_at?: Date | null;
}

const organizationSchema = new Schema<Organization>(
  {
    company_id: { type: Number, required: true, unique: true },
    name: { type: String, required: true },
    plan: { type: String, enum: PLAN_NAMES, required: true },
    plan_started_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'organizations', versionKey: false },
);

const apiTokenSchema = new Schema<ApiToken>(
  {
    token_id: { type: String, required: true, unique: true },
    company_id: { type: Number, required: true, index: true },
    token_hash: { type: String, required: true, unique: true },
    created_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
    name: { type: String },
    hint: { type: String },
    last_used_at: { type: Date, default: null },
  },
  { collection: 'api_tokens', versionKey: false },
);

const projection = { _id: 0 } as const;

export function createOrganizationStore(db: Connection) {
  const Organizations = db.model('Organization', organizationSchema);
  const ApiTokens = db.model('ApiToken', apiTokenSchema);

  return {
    async init(): Promise<void> {
      await Promise.all([Organizations.init(), ApiTokens.init()]);
    },

    async insertOrganization(fields: Omit<Organization, 'company_id'>): Promise<Organization> {
      const company_id = await nextId(db, 'organizations');
      const organization = { company_id, ...fields };
      await Organizations.create(organization);
      return organization;
    },

    findOrganization(company_id: number): Promise<Organization | null> {
      return Organizations.findOne({ company_id }, projection).lean<Organization>().exec();
    },

    /** Undoes a creation whose later steps failed: the organization and every token of it. */
    async deleteOrganization(company_id: number): Promise<void> {
      await ApiTokens.deleteMany({ company_id });
      await Organizations.deleteOne({ company_id });
    },

    async insertToken(token: ApiToken): Promise<void> {
      await ApiTokens.create(token);
    },

    findActiveTokenByHash(token_hash: string): Promise<ApiToken | null> {
      return ApiTokens.findOne({ token_hash, revoked_at: null }, projection)
        .lean<ApiToken>()
        .exec();
    },

    /**
     * Returns the revoked token, or null when no active token has that id (of that
     * organization, when one is named).
     */
    async revokeToken(token_id: string, now: Date, company_id?: number): Promise<ApiToken | null> {
      // No projection here: FerretDB does not implement `fields` in findAndModify.
      const revoked = await ApiTokens.findOneAndUpdate(
        company_id === undefined
          ? { token_id, revoked_at: null }
          : { token_id, company_id, revoked_at: null },
        { $set: { revoked_at: now } },
        { returnDocument: 'after' },
      )
        .lean<ApiToken & { _id: unknown }>()
        .exec();
      if (!revoked) return null;
      const { _id, ...token } = revoked;
      return token;
    },

    /** The organization's tokens that still work, oldest first. */
    listActiveTokens(company_id: number): Promise<ApiToken[]> {
      return ApiTokens.find({ company_id, revoked_at: null }, projection)
        .sort({ created_at: 1 })
        .lean<ApiToken[]>()
        .exec();
    },

    async touchToken(token_id: string, now: Date): Promise<void> {
      await ApiTokens.updateOne({ token_id }, { $set: { last_used_at: now } });
    },
  };
}

export type OrganizationStore = ReturnType<typeof createOrganizationStore>;
