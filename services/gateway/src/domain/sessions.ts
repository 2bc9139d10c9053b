import { randomBytes } from 'node:crypto';
import type { SessionResponse } from '@switchboard/contracts';
import type { Organization, OrganizationStore } from '../data-access/organization-store';
import type { Session, SessionStore } from '../data-access/session-store';
import type { User, UserStore } from '../data-access/user-store';
import { hashToken } from './api-tokens';
import { verifyAgainstDecoy, verifyPassword } from './passwords';

export interface SessionPolicy {
  idleTimeoutMs: number;
  maxAgeMs: number;
}

/**
 * The idle expiry moves at most once a minute (or a quarter of the idle timeout, if shorter): a
 * busy session costs one write a minute, not one per request.
 */
const TOUCH_EVERY_MS = 60_000;

export interface OpenedSession {
  /** The cookie's value: shown to the browser once, kept here only as its hash. */
  secret: string;
  session: Session;
}

export interface SignedIn {
  session: Session;
  sessionHash: string;
  user: User;
  organization: Organization;
}

export interface SessionDeps {
  sessions: SessionStore;
  users: UserStore;
  organizations: OrganizationStore;
  policy: SessionPolicy;
}

export function createSessions(deps: SessionDeps) {
  const { sessions, users, organizations, policy } = deps;
  const touchEveryMs = Math.min(TOUCH_EVERY_MS, policy.idleTimeoutMs / 4);

  async function open(user: User, now = new Date()): Promise<OpenedSession> {
    const secret = randomBytes(32).toString('base64url');
    const session: Session = {
      session_hash: hashToken(secret),
      user_id: user.user_id,
      company_id: user.company_id,
      csrf_token: randomBytes(24).toString('base64url'),
      created_at: now,
      idle_expires_at: new Date(now.getTime() + policy.idleTimeoutMs),
      expires_at: new Date(now.getTime() + policy.maxAgeMs),
    };
    await sessions.insert(session);
    return { secret, session };
  }

  return {
    open,

    /** A new session for a matching, active user; null for any wrong email, password or user. */
    async signIn(email: string, password: string, now = new Date()) {
      const user = await users.findUserByEmail(email);
      const matches = user?.password_hash
        ? await verifyPassword(password, user.password_hash)
        : await verifyAgainstDecoy(password);
      if (!user || !matches || !user.active) return null;
      return { user, ...(await open(user, now)) };
    },

    /**
     * The session a cookie names, while neither expiry has passed and its user is still active;
     * each request reads the user, so a role change or deactivation applies to the next request.
     */
    async resolve(secret: string, now = new Date()): Promise<SignedIn | null> {
      if (secret.length > 100) return null;
      const sessionHash = hashToken(secret);
      const session = await sessions.find(sessionHash);
      if (!session) return null;
      if (session.expires_at <= now || session.idle_expires_at <= now) {
        await sessions.delete(sessionHash);
        return null;
      }
      const [user, organization] = await Promise.all([
        users.findUser(session.user_id),
        organizations.findOrganization(session.company_id),
      ]);
      if (!user || !user.active || !organization) return null;
      const idleExpiresAt = new Date(now.getTime() + policy.idleTimeoutMs);
      if (idleExpiresAt.getTime() - session.idle_expires_at.getTime() >= touchEveryMs) {
        await sessions.touch(sessionHash, idleExpiresAt);
        session.idle_expires_at = idleExpiresAt;
      }
      return { session, sessionHash, user, organization };
    },

    /**
     * Which of these sessions are still signed in (neither expiry passed, the user active), in
     * two queries whatever their number; nothing is touched, so a long-lived stream does not
     * keep an otherwise idle session alive.
     */
    async stillSignedIn(sessionHashes: string[], now = new Date()): Promise<Set<string>> {
      const found = (await sessions.findMany(sessionHashes)).filter(
        (session) => session.expires_at > now && session.idle_expires_at > now,
      );
      const active = new Set(
        (await users.findUsers([...new Set(found.map((session) => session.user_id))]))
          .filter((user) => user.active)
          .map((user) => user.user_id),
      );
      return new Set(
        found.filter((session) => active.has(session.user_id)).map((s) => s.session_hash),
      );
    },

    async end(sessionHash: string): Promise<void> {
      await sessions.delete(sessionHash);
    },

    /** Ends the user's sessions at once (all, or all but the one named). */
    async endAllFor(user_id: number, keepSessionHash?: string): Promise<void> {
      await sessions.deleteForUser(user_id, keepSessionHash);
    },

    deleteExpired(now = new Date()): Promise<number> {
      return sessions.deleteExpired(now);
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;

/** What a sign-in (or an accepted invitation) answers: the user, and the session's CSRF token and end. */
export function presentSession(user: User, session: Session): SessionResponse {
  return {
    status: 'success',
    user: {
      id: user.user_id,
      company_id: user.company_id,
      name: user.name,
      email: user.email,
      role: user.role,
    },
    csrf_token: session.csrf_token,
    expires_at: new Date(
      Math.min(session.expires_at.getTime(), session.idle_expires_at.getTime()),
    ).toISOString(),
  };
}
