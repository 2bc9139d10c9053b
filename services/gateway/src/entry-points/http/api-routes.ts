import type { RequestHandler, Router } from 'express';
import {
  API_OPERATION_OWNERS,
  buildOpenApiDocument,
  type MeResponse,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { TokenAuthenticator } from '../../domain/authenticate-token';
import { ownerPath, rawPathOf } from '../../domain/public-paths';
import type { ServiceProxy } from '../../outbound/service-proxy';
import { authenticatedOrganization, requireToken } from './authenticate';
import { callerOf } from './authenticate-caller';
import { EDGE_CHECKED_OPERATIONS, type EdgeCheck } from './check-assignee';
import { presentOrganization } from '../../domain/present-organization';
import type { RateLimits } from './rate-limits';

/** Operation names match whatever case the client used; the owner always sees the spec's spelling. */
const CANONICAL_OPERATIONS = new Map(
  Object.keys(API_OPERATION_OWNERS).map((name) => [name.toLowerCase(), name]),
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

  router.all('/api/svc/me', authenticate, (_req, res) => {
    const body: MeResponse = {
      status: 'success',
      organization: presentOrganization(authenticatedOrganization(res)),
    };
    res.json(body);
  });

  router.all('/api/svc/:operation', authenticate, async (req, res) => {
    const operation = CANONICAL_OPERATIONS.get(String(req.params.operation).toLowerCase());
    if (!operation) {
      throw new AppError('not_found', `Unknown operation ${String(req.params.operation)}`);
    }
    const owner = API_OPERATION_OWNERS[operation as keyof typeof API_OPERATION_OWNERS];
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
    const path = ownerPath('/developer/webhooks', rawPathOf(req.originalUrl));
    await deps.proxy.forward('webhooks', req, res, path, authenticatedOrganization(res));
  });
}
