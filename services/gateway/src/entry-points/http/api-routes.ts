import type { RequestHandler, Router } from 'express';
import { API_OPERATIONS, buildOpenApiDocument, type MeResponse } from '@switchboard/contracts';
import { AppError, serveOperation } from '@switchboard/service-kit';
import type { TokenAuthenticator } from '../../domain/authenticate-token';
import { ownerPath, rawPathOf } from '../../domain/public-paths';
import type { OwnerService, ServiceProxy } from '../../outbound/service-proxy';
import { authenticatedOrganization, requireToken } from './authenticate';
import { callerOf } from './authenticate-caller';
import { EDGE_CHECKED_OPERATIONS, type EdgeCheck } from './check-assignee';
import { presentOrganization } from '../../domain/present-organization';
import { requireManager } from '../../domain/users';
import type { RateLimits } from './rate-limits';

/**
 * The operations forwarded to the service that owns them (the contracts name it), by lowercased
 * name: names match whatever case the client used; the owner always sees the published spelling.
 */
const FORWARDED_OPERATIONS = new Map(
  [...API_OPERATIONS.values()]
    .filter((operation) => operation.owner !== 'gateway')
    .map((operation) => [operation.name.toLowerCase(), operation]),
);

export function apiRoutes(
  router: Router,
  deps: {
    authenticator: TokenAuthenticator;
    proxy: ServiceProxy;
    limits: RateLimits;
    /** Token or session (the console); a token alone when not given. */
    authenticate?: RequestHandler;
    /** Checks of an operation's input against what the gateway keeps (users), by operation. */
    edgeChecks?: Record<string, EdgeCheck>;
  },
): void {
  const openApiDocument = buildOpenApiDocument();
  const authenticate = deps.authenticate ?? requireToken(deps.authenticator, deps.limits);

  router.get('/api/svc/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });

  serveOperation(router, 'me', authenticate, (_req, res) => {
    const body: MeResponse = {
      status: 'success',
      organization: presentOrganization(authenticatedOrganization(res)),
    };
    res.json(body);
  });

  router.all('/api/svc/:operation', authenticate, async (req, res) => {
    const found = FORWARDED_OPERATIONS.get(String(req.params.operation).toLowerCase());
    if (!found) {
      throw new AppError('not_found', `Unknown operation ${String(req.params.operation)}`);
    }
    const operation = found.name;
    const owner = found.owner as OwnerService;
    const check = EDGE_CHECKED_OPERATIONS.has(operation) ? deps.edgeChecks?.[operation] : undefined;
    if (check) await check(req, res);
    const caller = callerOf(res);
    await deps.proxy.forward(
      owner,
      req,
      res,
      `/api/svc/${operation}`,
      authenticatedOrganization(res),
      caller?.kind === 'user'
        ? { user_id: caller.user.user_id, role: caller.user.role }
        : undefined,
    );
  });

  router.use('/developer/webhooks', authenticate, async (req, res) => {
    // A webhook receives every event of the organization and its secret is a credential, so an
    // agent, who works the inbox, may not add or read them; the organization's token may.
    const caller = callerOf(res);
    if (caller) requireManager(caller, 'manage webhooks', true);
    const path = ownerPath('/developer/webhooks', rawPathOf(req.originalUrl));
    await deps.proxy.forward('webhooks', req, res, path, authenticatedOrganization(res));
  });
}
