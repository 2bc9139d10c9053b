import type { RequestHandler, Router } from 'express';
import {
  AddAgentRequestSchema,
  AgentIdRequestSchema,
  CreateNamedTokenRequestSchema,
  ListUsersQuerySchema,
  MAX_USERS_PER_PAGE,
  pageOrWholeList,
  TokenIdRequestSchema,
  UpdateAgentRequestSchema,
} from '@switchboard/contracts';
import { operationInput, parseInput, serveOperation } from '@switchboard/service-kit';
import type { Organizations } from '../../domain/organizations';
import {
  addAgent,
  deleteAgent,
  listAgents,
  presentAgent,
  requireManager,
  updateAgent,
  type UserDeps,
} from '../../domain/users';
import { authenticatedOrganization } from './authenticate';
import { callerOf } from './authenticate-caller';

export interface UserRouteDeps {
  authenticate: RequestHandler;
  userDeps: UserDeps;
  organizations: Organizations;
}

/**
 * The gateway's own `/api/svc` operations: the organization's users and API tokens. Mounted
 * before the proxy's `/api/svc/:operation`, so they are answered here and never forwarded.
 */
export function userRoutes(router: Router, deps: UserRouteDeps): void {
  const { authenticate, userDeps } = deps;

  // Every user may list their colleagues: the inbox assigns conversations to them.
  serveOperation(router, 'getAgents', authenticate, async (req, res) => {
    const paging = parseInput(ListUsersQuerySchema, operationInput(req));
    const { company_id } = authenticatedOrganization(res);
    const agents = await listAgents(userDeps, company_id);
    const { items, meta } = pageOrWholeList(agents, paging, MAX_USERS_PER_PAGE);
    res.json({ status: 'success', agents: items, meta });
  });

  serveOperation(router, 'addAgent', authenticate, async (req, res) => {
    requireManager(callerOf(res), 'add users');
    const request = parseInput(AddAgentRequestSchema, operationInput(req));
    const { user, invitation } = await addAgent(
      userDeps,
      authenticatedOrganization(res),
      callerOf(res),
      request,
    );
    res.status(201).json({
      status: 'success',
      agent: presentAgent(user),
      invitation_url: invitation.invitation_url,
      invitation_expires_at: invitation.invitation_expires_at.toISOString(),
    });
  });

  serveOperation(router, 'updateAgent', authenticate, async (req, res) => {
    requireManager(callerOf(res), 'change users');
    const request = parseInput(UpdateAgentRequestSchema, operationInput(req));
    const user = await updateAgent(
      userDeps,
      authenticatedOrganization(res),
      callerOf(res),
      request,
    );
    res.json({ status: 'success', agent: presentAgent(user) });
  });

  serveOperation(router, 'deleteAgent', authenticate, async (req, res) => {
    requireManager(callerOf(res), 'delete users');
    const { agent_id } = parseInput(AgentIdRequestSchema, operationInput(req));
    await deleteAgent(userDeps, authenticatedOrganization(res), callerOf(res), agent_id);
    res.json({ status: 'success', agent_id, deleted: true });
  });

  serveOperation(router, 'getTokens', authenticate, async (req, res) => {
    requireManager(callerOf(res), 'see API tokens', true);
    const paging = parseInput(ListUsersQuerySchema, operationInput(req));
    const tokens = await deps.organizations.tokens.list(authenticatedOrganization(res).company_id);
    const { items, meta } = pageOrWholeList(tokens, paging, MAX_USERS_PER_PAGE);
    res.json({ status: 'success', tokens: items, meta });
  });

  serveOperation(router, 'createToken', authenticate, async (req, res) => {
    requireManager(callerOf(res), 'create API tokens');
    const { name } = parseInput(CreateNamedTokenRequestSchema, operationInput(req));
    const created = await deps.organizations.tokens.create(
      authenticatedOrganization(res).company_id,
      name,
    );
    res.status(201).json({ status: 'success', ...created });
  });

  serveOperation(router, 'deleteToken', authenticate, async (req, res) => {
    requireManager(callerOf(res), 'revoke API tokens', true);
    const { token_id } = parseInput(TokenIdRequestSchema, operationInput(req));
    await deps.organizations.tokens.revoke(authenticatedOrganization(res).company_id, token_id);
    res.json({ status: 'success', token_id, revoked: true });
  });
}
