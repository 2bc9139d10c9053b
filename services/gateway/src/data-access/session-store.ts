import mongoose, { Schema, type Connection } from 'mongoose';

/** A signed-in user's session; the cookie holds the secret, this record only its hash. */
export interface Session {
  session_hash: string;
  user_id: number;
  company_id: number;
  /** Sent back in a header with every cookie-authenticated write (not a credential alone). */
  csrf_token: string;
  created_at: Date;
  /** The idle expiry, moved forward as the session is used. */
  idle_expires_at: Date;
  /** The absolute expiry, fixed at sign-in. */
  expires_at: Date;
}

const sessionSchema = new Schema<Session>(
  {
    session_hash: { type: String, required: true, unique: true },
    user_id: { type: Number, required: true, index: true },
    company_id: { type: Number, required: true },
    csrf_token: { type: String, required: true },
    created_at: { type: Date, required: true },
    idle_expires_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'sessions', versionKey: false },
);

const projection = { _id: 0 } as const;

export function createSessionStore(db: Connection) {
  const Sessions = db.model('Session', sessionSchema);

  return {
    async init(): Promise<void> {
      await Sessions.init();
    },

    async insert(session: Session): Promise<void> {
      await Sessions.create(session);
    },

    find(session_hash: string): Promise<Session | null> {
      return Sessions.findOne({ session_hash }, projection).lean<Session>().exec();
    },

    /** The sessions of these hashes that still exist, in one query. */
    findMany(session_hashes: string[]): Promise<Session[]> {
      if (session_hashes.length === 0) return Promise.resolve([]);
      return Sessions.find({ session_hash: mongoose.trusted({ $in: session_hashes }) }, projection)
        .lean<Session[]>()
        .exec();
    },

    async touch(session_hash: string, idle_expires_at: Date): Promise<void> {
      await Sessions.updateOne({ session_hash }, { $set: { idle_expires_at } });
    },

    async delete(session_hash: string): Promise<void> {
      await Sessions.deleteOne({ session_hash });
    },

    /** Ends every session of a user, but `keep` (the one changing its password). */
    async deleteForUser(user_id: number, keep?: string): Promise<void> {
      await Sessions.deleteMany(
        keep === undefined
          ? { user_id }
          : { user_id, session_hash: mongoose.trusted({ $ne: keep }) },
      );
    },

    /** Removes sessions past either expiry (nothing would accept them any more). */
    async deleteExpired(now: Date): Promise<number> {
      const result = await Sessions.deleteMany({
        $or: [
          { expires_at: mongoose.trusted({ $lte: now }) },
          { idle_expires_at: mongoose.trusted({ $lte: now }) },
        ],
      });
      return result.deletedCount;
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
