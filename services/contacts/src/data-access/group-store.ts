import mongoose, { Schema, type Connection } from 'mongoose';

export interface StoredGroup {
  id: number;
  company_id: number;
  name: string;
  /** The name as compared for uniqueness: trimmed and lowercased. */
  name_key: string;
  created_at: Date;
  updated_at: Date;
}

const groupSchema = new Schema<StoredGroup>(
  {
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    name: { type: String, required: true },
    name_key: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'groups', versionKey: false },
);
groupSchema.index({ id: 1 }, { unique: true });
groupSchema.index({ company_id: 1, name_key: 1 }, { unique: true });
groupSchema.index({ company_id: 1, id: 1 });

export const groupNameKey = (name: string) => name.trim().toLowerCase();

const withoutMongoId = { _id: 0 } as const;

export function createGroupStore(db: Connection) {
  const Groups = db.model<StoredGroup>('Group', groupSchema);
  const strip = (doc: (StoredGroup & { _id?: unknown }) | null): StoredGroup | null => {
    if (!doc) return null;
    const { _id, ...group } = doc;
    return group;
  };

  return {
    async init(): Promise<void> {
      await Groups.init();
    },

    /** Throws a duplicate-key error (code 11000) when the organization has a group of that name. */
    async insert(group: StoredGroup): Promise<void> {
      await Groups.collection.insertOne({ ...group });
    },

    findAll(company_id: number): Promise<StoredGroup[]> {
      return Groups.find({ company_id }, withoutMongoId)
        .sort({ id: 1 })
        .lean<StoredGroup[]>()
        .exec();
    },

    findById(company_id: number, id: number): Promise<StoredGroup | null> {
      return Groups.findOne({ company_id, id }, withoutMongoId).lean<StoredGroup>().exec();
    },

    findByIds(company_id: number, ids: number[]): Promise<StoredGroup[]> {
      return Groups.find({ company_id, id: mongoose.trusted({ $in: ids }) }, withoutMongoId)
        .lean<StoredGroup[]>()
        .exec();
    },

    findByNameKeys(company_id: number, nameKeys: string[]): Promise<StoredGroup[]> {
      return Groups.find(
        { company_id, name_key: mongoose.trusted({ $in: nameKeys }) },
        withoutMongoId,
      )
        .lean<StoredGroup[]>()
        .exec();
    },

    /** Throws a duplicate-key error when another group of the organization has the new name. */
    async rename(
      company_id: number,
      id: number,
      name: string,
      now: Date,
    ): Promise<StoredGroup | null> {
      const renamed = await Groups.findOneAndUpdate(
        { company_id, id },
        { $set: { name, name_key: groupNameKey(name), updated_at: now } },
        { returnDocument: 'after' },
      )
        .lean<StoredGroup & { _id: unknown }>()
        .exec();
      return strip(renamed);
    },

    async delete(company_id: number, id: number): Promise<StoredGroup | null> {
      const deleted = await Groups.findOneAndDelete({ company_id, id })
        .lean<StoredGroup & { _id: unknown }>()
        .exec();
      return strip(deleted);
    },
  };
}

export type GroupStore = ReturnType<typeof createGroupStore>;
