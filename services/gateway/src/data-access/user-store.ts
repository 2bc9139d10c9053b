import mongoose, { Schema, type Connection } from 'mongoose';
import type { UserRole } from '@switchboard/contracts';
import { createQuotaCounter, nextId } from '@switchboard/service-kit';

export interface User {
  user_id: number;
  company_id: number;
  /** Lower case; unique across organizations, since sign-in names no organization. */
  email: string;
  name: string;
  role: UserRole;
  active: boolean;
  /** Null until the user sets a password through their invitation. */
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A one-time invitation: only the hash of its secret is kept. */
export interface Invitation {
  invitation_hash: string;
  user_id: number;
  company_id: number;
  expires_at: Date;
}

const userSchema = new Schema<User>(
  {
    user_id: { type: Number, required: true, unique: true },
    company_id: { type: Number, required: true, index: true },
    email: { type: String, required: true, unique: true },
    name: { type: String, required: true },
    role: { type: String, required: true },
    active: { type: Boolean, required: true },
    password_hash: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'users', versionKey: false },
);

const invitationSchema = new Schema<Invitation>(
  {
    invitation_hash: { type: String, required: true, unique: true },
    user_id: { type: Number, required: true, index: true },
    company_id: { type: Number, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'invitations', versionKey: false },
);

const projection = { _id: 0 } as const;

/** What findOneAndUpdate returns without a projection (FerretDB has none for it): `_id` dropped. */
function withoutId<T>(document: (T & { _id?: unknown }) | null): T | null {
  if (!document) return null;
  const { _id, ...rest } = document;
  return rest as T;
}

export function createUserStore(db: Connection) {
  const Users = db.model('User', userSchema);
  const Invitations = db.model('Invitation', invitationSchema);
  // How many users an organization holds, against the plan's agents limit; an organization
  // older than users has no counter until its first add, which counts the users it holds.
  const seats = createQuotaCounter(db, { collection: 'agent_seats' });

  return {
    async init(): Promise<void> {
      await Promise.all([Users.init(), Invitations.init()]);
    },

    nextUserId(): Promise<number> {
      return nextId(db, 'users');
    },

    /**
     * Takes one seat, atomically: only while fewer than `limit` are taken (`null`: unlimited,
     * still counted). False, having changed nothing, when the organization is at its limit.
     */
    reserveSeat(company_id: number, limit: number | null): Promise<boolean> {
      return seats.take({ owner: company_id }, limit, {
        countHeld: () => Users.countDocuments({ company_id }),
      });
    },

    /** Gives a seat back: a deleted user, or an add that did not happen. */
    async releaseSeat(company_id: number): Promise<void> {
      await seats.giveBack({ owner: company_id });
    },

    seatsUsed(company_id: number): Promise<number> {
      return seats.usage({ owner: company_id });
    },

    /** Throws a duplicate-key error when the email is taken. */
    async insertUser(user: User): Promise<void> {
      await Users.create(user);
    },

    findUserByEmail(email: string): Promise<User | null> {
      return Users.findOne({ email }, projection).lean<User>().exec();
    },

    findUser(user_id: number): Promise<User | null> {
      return Users.findOne({ user_id }, projection).lean<User>().exec();
    },

    /** The users of these ids that exist, in one query. */
    findUsers(user_ids: number[]): Promise<User[]> {
      if (user_ids.length === 0) return Promise.resolve([]);
      return Users.find({ user_id: mongoose.trusted({ $in: user_ids }) }, projection)
        .lean<User[]>()
        .exec();
    },

    /** The user of this organization with that id; another organization's user is not found. */
    findMember(company_id: number, user_id: number): Promise<User | null> {
      return Users.findOne({ company_id, user_id }, projection).lean<User>().exec();
    },

    listMembers(company_id: number): Promise<User[]> {
      return Users.find({ company_id }, projection).sort({ user_id: 1 }).lean<User[]>().exec();
    },

    async updateMember(
      company_id: number,
      user_id: number,
      changes: Partial<Pick<User, 'name' | 'role' | 'active' | 'password_hash'>>,
      now: Date,
    ): Promise<User | null> {
      const updated = await Users.findOneAndUpdate(
        { company_id, user_id },
        { $set: { ...changes, updated_at: now } },
        { returnDocument: 'after' },
      )
        .lean<User & { _id: unknown }>()
        .exec();
      return withoutId<User>(updated);
    },

    async deleteMember(company_id: number, user_id: number): Promise<boolean> {
      const result = await Users.deleteOne({ company_id, user_id });
      await Invitations.deleteMany({ user_id });
      return result.deletedCount === 1;
    },

    async insertInvitation(invitation: Invitation): Promise<void> {
      await Invitations.create(invitation);
    },

    /** Takes the invitation: it works once, so it is deleted as it is read. */
    async takeInvitation(invitation_hash: string): Promise<Invitation | null> {
      const taken = await Invitations.findOneAndDelete({ invitation_hash })
        .lean<Invitation & { _id: unknown }>()
        .exec();
      return withoutId<Invitation>(taken);
    },

    /** Undoes an organization whose creation failed. */
    async deleteOrganizationUsers(company_id: number): Promise<void> {
      await Users.deleteMany({ company_id });
      await Invitations.deleteMany({ company_id });
      await seats.remove({ owner: company_id });
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
