import {
  ALL_OPERATIONS,
  API_OPERATION_OWNERS,
  operationsServedBy,
  AddAgentRequestSchema,
  CreateOrganizationRequestSchema,
  USER_OPERATIONS,
  UpdateAgentRequestSchema,
  buildOpenApiDocument,
} from '../../src';

describe('users and tokens in the contracts', () => {
  test('when the document is built, then the user and token operations are there with their authentication, and the session cookie is a security scheme', () => {
    const document = buildOpenApiDocument();
    const security = (path: string, method: string) =>
      (document.paths[path]?.[method] as { security: unknown }).security;
    expect(security('/api/svc/getAgents', 'get')).toEqual([
      { tokenQuery: [] },
      { tokenBearer: [] },
      { sessionCookie: [] },
    ]);
    expect(security('/api/svc/addAgent', 'post')).toEqual([{ sessionCookie: [] }]);
    expect(security('/api/svc/getUsage', 'get')).toEqual(security('/api/svc/getAgents', 'get'));
    expect(security('/auth/sign-in', 'post')).toEqual([]);
    expect(document.components.securitySchemes.sessionCookie).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: '__Host-sb_session',
    });
    const served = USER_OPERATIONS.map((operation) => operation.operationId);
    expect(served).toEqual(
      operationsServedBy('gateway')
        .map((operation) => operation.name)
        // The gateway's own operations that are not about users: the account and its usage.
        .filter((name) => name !== 'me' && name !== 'getUsage'),
    );
    for (const name of served) expect(API_OPERATION_OWNERS).not.toHaveProperty(name);
    expect(ALL_OPERATIONS.filter((op) => op.operationId === 'createToken')).toHaveLength(1);
  });

  test('when users are added or changed, then roles are admin or agent only, emails are lower-cased, and an update must change something', () => {
    expect(AddAgentRequestSchema.parse({ name: 'Bo', email: ' Bo@Example.COM ' })).toEqual({
      name: 'Bo',
      email: 'bo@example.com',
      role: 'agent',
    });
    expect(
      AddAgentRequestSchema.safeParse({ name: 'Bo', email: 'b@e.co', role: 'owner' }).success,
    ).toBe(false);
    expect(UpdateAgentRequestSchema.safeParse({ agent_id: 3 }).success).toBe(false);
    expect(UpdateAgentRequestSchema.parse({ agent_id: '3', active: 'false' })).toEqual({
      agent_id: 3,
      active: false,
    });
    expect(
      CreateOrganizationRequestSchema.safeParse({ name: 'X', owner_password: 'long enough' })
        .success,
    ).toBe(false);
  });
});
