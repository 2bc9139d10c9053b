import type { Router } from 'express';
import type { Connection } from 'mongoose';
import { startPeriodicJob, type Leases, type Logger } from '@switchboard/service-kit';
import type { GatewayConfig } from './config';
import type { OrganizationStore } from './data-access/organization-store';
import type { Organizations } from './domain/organizations';
import { createSessionStore } from './data-access/session-store';
import { createUserStore } from './data-access/user-store';
import type { TokenAuthenticator } from './domain/authenticate-token';
import { createSessions } from './domain/sessions';
import { checkAssignable, ownerMakerFor, type UserDeps } from './domain/users';
import { requireCaller } from './entry-points/http/authenticate-caller';
import type { RateLimits } from './entry-points/http/rate-limits';
import { createSessionCookie } from './entry-points/http/session-cookie';
import { sessionRoutes } from './entry-points/http/session-routes';
import { createSignInLimits } from './entry-points/http/sign-in-limits';
import { userRoutes } from './entry-points/http/user-routes';

/**
 * The organization's users and their sessions: stores, the expired-session sweep, the
 * token-or-session authentication every `/api/svc` route uses, and the routes of the console's
 * doors and of the user and token operations.
 */
export async function startUsers(deps: {
  config: GatewayConfig;
  db: Connection;
  logger: Logger;
  store: OrganizationStore;
  organizations: Organizations;
  authenticator: TokenAuthenticator;
  limits: RateLimits;
  leases?: Leases;
}) {
  const { config, store, authenticator, limits } = deps;
  const users = createUserStore(deps.db);
  const sessionStore = createSessionStore(deps.db);
  await Promise.all([users.init(), sessionStore.init()]);
  const sessions = createSessions({
    sessions: sessionStore,
    users,
    organizations: store,
    policy: { idleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MS, maxAgeMs: config.SESSION_MAX_AGE_MS },
  });
  const userDeps: UserDeps = {
    users,
    sessions,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    invitationTtlMs: config.INVITATION_TTL_MS,
  };
  // Secure outside development: browsers keep a Secure cookie off plain HTTP.
  const cookie = createSessionCookie({ secure: config.NODE_ENV !== 'development' });
  const signInLimits = createSignInLimits({
    replicas: config.GATEWAY_REPLICAS,
    perAccount: config.SIGN_IN_FAILURES_PER_ACCOUNT,
    perAddress: config.SIGN_IN_FAILURES_PER_ADDRESS,
  });
  const sweep = startPeriodicJob({
    name: 'expired-sessions',
    everyMs: 60 * 60_000,
    logger: deps.logger,
    leases: deps.leases,
    run: async () => {
      await sessions.deleteExpired();
    },
  });
  const authenticate = requireCaller({ authenticator, sessions, cookie, limits });

  return {
    sessions,
    cookie,
    /** Token or session: the authentication of every `/api/svc` route. */
    authenticate,
    /** Users the organization holds, as its agents quota counts them. */
    seatsUsed: (company_id: number) => users.seatsUsed(company_id),
    /** Checks another operation's input against the users (an assignee). */
    checkAssignable: (company_id: number, agent_id: number) =>
      checkAssignable(users, company_id, agent_id),
    ownerFor: (request: Parameters<typeof ownerMakerFor>[1]) => ownerMakerFor(userDeps, request),
    /** Mounted before the proxy's routes: these operations are the gateway's own. */
    routes(router: Router): void {
      sessionRoutes(router, { sessions, userDeps, cookie, limits, signInLimits });
      userRoutes(router, { authenticate, userDeps, organizations: deps.organizations });
    },
    stop: () => sweep.stop(),
  };
}
