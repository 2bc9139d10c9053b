import { randomBytes } from 'node:crypto';
import {
  limitFor,
  quotaExceededMessage,
  type AddAgentRequest,
  type Agent,
  type OrganizationOwner,
  type UpdateAgentRequest,
  type UserRole,
} from '@switchboard/contracts';
import { AppError, isDuplicateKeyError } from '@switchboard/service-kit';
import type { Organization } from '../data-access/organization-store';
import type { User, UserStore } from '../data-access/user-store';
import { hashToken } from './api-tokens';
import type { OwnerMaker } from './manage-organizations';
import { hashPassword, verifyPassword } from './passwords';
import type { Sessions } from './sessions';

/** Who is asking: a signed-in user, or the organization's API token (which has no role). */
export type Caller = { kind: 'user'; user: User; sessionHash: string } | { kind: 'token' };

export interface UserDeps {
  users: UserStore;
  sessions: Sessions;
  /** Invitation links point at the console under this address. */
  publicBaseUrl: string;
  invitationTtlMs: number;
}

export interface IssuedInvitation {
  invitation_url: string;
  invitation_expires_at: Date;
}

const MANAGERS: ReadonlySet<UserRole> = new Set(['owner', 'admin']);

/**
 * Users and tokens are managed by a signed-in owner or admin. An API token may read and revoke
 * but not create users or tokens: a leaked token must not be able to mint credentials that
 * outlive its own revocation (an invited admin, another token).
 */
export function requireManager(caller: Caller, what: string, tokenMay = false): void {
  if (caller.kind === 'token') {
    if (tokenMay) return;
    throw new AppError(
      'forbidden',
      `Only a signed-in owner or admin can ${what}; an API token cannot, so that a leaked token cannot create new credentials`,
    );
  }
  if (!MANAGERS.has(caller.user.role)) {
    throw new AppError(
      'forbidden',
      `Only the organization's owner and admins can ${what}; you are signed in as an agent`,
    );
  }
}

async function issueInvitation(deps: UserDeps, user: User, now: Date): Promise<IssuedInvitation> {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + deps.invitationTtlMs);
  await deps.users.insertInvitation({
    invitation_hash: hashToken(secret),
    user_id: user.user_id,
    company_id: user.company_id,
    expires_at: expiresAt,
  });
  // In the fragment: a browser never sends it to a server, so it stays out of access logs.
  const url = new URL('/console/accept-invitation', deps.publicBaseUrl);
  url.hash = `invitation=${secret}`;
  return { invitation_url: url.toString(), invitation_expires_at: expiresAt };
}

const emailTaken = (email: string) =>
  new AppError('conflict', `email: a user with the address ${email} already exists`);

/**
 * Adds a user in a seat of the organization's agents quota, taken first and atomically, so
 * concurrent adds never pass the limit; the seat is given back when the user cannot be added.
 */
async function insertUserInSeat(
  deps: UserDeps,
  organization: Organization,
  fields: Pick<User, 'email' | 'name' | 'role' | 'password_hash'>,
  limit: number | null,
  now: Date,
): Promise<User> {
  const { company_id } = organization;
  if (!(await deps.users.reserveSeat(company_id, limit))) {
    throw new AppError(
      'quota_exceeded',
      quotaExceededMessage(organization.plan, 'agents', organization.plan_started_at, now),
    );
  }
  try {
    const user: User = {
      user_id: await deps.users.nextUserId(),
      company_id,
      ...fields,
      active: true,
      created_at: now,
      updated_at: now,
    };
    await deps.users.insertUser(user);
    return user;
  } catch (error) {
    await deps.users.releaseSeat(company_id);
    if (isDuplicateKeyError(error)) throw emailTaken(fields.email);
    throw error;
  }
}

/** The organization's first user; the owner always has a seat, whatever the plan allows. */
export async function createOwner(
  deps: UserDeps,
  organization: Organization,
  owner: { email: string; password?: string; name?: string },
  now = new Date(),
): Promise<{ user: User; invitation?: IssuedInvitation }> {
  const password_hash = owner.password ? await hashPassword(owner.password) : null;
  const name = owner.name ?? owner.email.split('@')[0]!;
  const user = await insertUserInSeat(
    deps,
    organization,
    { email: owner.email, name, role: 'owner', password_hash },
    null,
    now,
  );
  if (password_hash) return { user };
  return { user, invitation: await issueInvitation(deps, user, now) };
}

export async function addAgent(
  deps: UserDeps,
  organization: Organization,
  caller: Caller,
  request: AddAgentRequest,
  now = new Date(),
): Promise<{ user: User; invitation: IssuedInvitation }> {
  requireManager(caller, 'add users');
  const limit = limitFor(organization.plan, 'agents', organization.plan_started_at, now);
  const user = await insertUserInSeat(
    deps,
    organization,
    { email: request.email, name: request.name, role: request.role, password_hash: null },
    limit,
    now,
  );
  return { user, invitation: await issueInvitation(deps, user, now) };
}

async function memberToChange(
  deps: UserDeps,
  organization: Organization,
  caller: Caller,
  user_id: number,
  change: string,
): Promise<User> {
  requireManager(caller, `${change} users`);
  const member = await deps.users.findMember(organization.company_id, user_id);
  if (!member) throw new AppError('not_found', `agent_id: no user ${user_id}`);
  if (member.role === 'owner') {
    throw new AppError('forbidden', `The organization's owner cannot be changed or removed here`);
  }
  if (caller.kind === 'user' && caller.user.user_id === user_id) {
    throw new AppError('conflict', `You cannot ${change} yourself; ask another owner or admin`);
  }
  return member;
}

/** Deactivating a user ends every session of theirs at once. */
export async function updateAgent(
  deps: UserDeps,
  organization: Organization,
  caller: Caller,
  request: UpdateAgentRequest,
  now = new Date(),
): Promise<User> {
  await memberToChange(deps, organization, caller, request.agent_id, 'change');
  const { agent_id, ...changes } = request;
  const updated = await deps.users.updateMember(organization.company_id, agent_id, changes, now);
  if (!updated) throw new AppError('not_found', `agent_id: no user ${agent_id}`);
  if (!updated.active) await deps.sessions.endAllFor(agent_id);
  return updated;
}

export async function deleteAgent(
  deps: UserDeps,
  organization: Organization,
  caller: Caller,
  user_id: number,
): Promise<void> {
  await memberToChange(deps, organization, caller, user_id, 'delete');
  await deps.sessions.endAllFor(user_id);
  if (await deps.users.deleteMember(organization.company_id, user_id)) {
    await deps.users.releaseSeat(organization.company_id);
  }
}

/** Sets the invited user's password; the invitation works once and until it expires. */
export async function acceptInvitation(
  deps: UserDeps,
  secret: string,
  password: string,
  name: string | undefined,
  now = new Date(),
): Promise<User | null> {
  const invitation = await deps.users.takeInvitation(hashToken(secret));
  if (!invitation || invitation.expires_at <= now) return null;
  const password_hash = await hashPassword(password);
  const user = await deps.users.updateMember(
    invitation.company_id,
    invitation.user_id,
    { password_hash, ...(name ? { name } : {}) },
    now,
  );
  return user?.active ? user : null;
}

/** A new password ends the user's other sessions (a thief's among them); this one goes on. */
export async function changePassword(
  deps: UserDeps,
  caller: Extract<Caller, { kind: 'user' }>,
  currentPassword: string,
  newPassword: string,
  now = new Date(),
): Promise<void> {
  const { user } = caller;
  if (!user.password_hash || !(await verifyPassword(currentPassword, user.password_hash))) {
    throw new AppError('invalid_credentials', 'current_password: the current password is wrong');
  }
  const password_hash = await hashPassword(newPassword);
  await deps.users.updateMember(user.company_id, user.user_id, { password_hash }, now);
  await deps.sessions.endAllFor(user.user_id, caller.sessionHash);
}

/** The owner an organization's creation names, made with it and removed with it on failure. */
export function ownerMakerFor(
  deps: UserDeps,
  request: { owner_email?: string; owner_password?: string; owner_name?: string },
): OwnerMaker<OrganizationOwner> | undefined {
  const email = request.owner_email;
  if (email === undefined) return undefined;
  return {
    async create(organization) {
      const { user, invitation } = await createOwner(deps, organization, {
        email,
        password: request.owner_password,
        name: request.owner_name,
      });
      return {
        id: user.user_id,
        email: user.email,
        role: 'owner',
        ...(invitation
          ? {
              invitation_url: invitation.invitation_url,
              invitation_expires_at: invitation.invitation_expires_at.toISOString(),
            }
          : {}),
      };
    },
    undo: (company_id) => deps.users.deleteOrganizationUsers(company_id),
  };
}

/** A user as the API shows them (`getAgents`, `addAgent`, `updateAgent`). */
export function presentAgent(user: User): Agent {
  return {
    id: user.user_id,
    name: user.name,
    email: user.email,
    role: user.role,
    active: user.active,
    invitation_pending: user.password_hash === null,
    created_at: user.created_at.toISOString(),
  };
}

/** The organization's users, as `getAgents` lists them. */
export async function listAgents(
  deps: Pick<UserDeps, 'users'>,
  company_id: number,
): Promise<Agent[]> {
  return (await deps.users.listMembers(company_id)).map(presentAgent);
}

/**
 * A conversation may be assigned only to an active user of the organization. Users live in the
 * gateway, so it checks this before forwarding; messaging keeps only the id.
 */
export async function checkAssignable(
  users: Pick<UserStore, 'findMember'>,
  company_id: number,
  agent_id: number,
): Promise<void> {
  const user = await users.findMember(company_id, agent_id);
  if (!user || !user.active) {
    throw new AppError(
      'validation_failed',
      `agent_id: no active user ${agent_id} in this organization`,
    );
  }
}
