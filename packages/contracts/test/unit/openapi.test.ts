import { spawnSync } from 'node:child_process';
import path from 'node:path';
import {
  ALL_OPERATIONS,
  API_OPERATIONS,
  API_OPERATION_OWNERS,
  apiOperationsOf,
  operationsServedBy,
  GATEWAY_OPERATIONS,
  buildOpenApiDocument,
} from '../../src';

const METHODS = ['get', 'post', 'put', 'delete'];

/** The validator is ESM-only, so it runs in a child Node process and reads the document on stdin. */
function validateWithOpenApiSchema(document: unknown): { valid: boolean; errors?: unknown } {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(text));
    process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.join(__dirname, '..', '..'),
    input: JSON.stringify(document),
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { valid: boolean; errors?: unknown };
}

describe('buildOpenApiDocument', () => {
  const document = buildOpenApiDocument();
  const operations = Object.values(document.paths).flatMap((item) =>
    Object.entries(item).filter(([method]) => METHODS.includes(method)),
  );

  test('when the document is built, then it is OpenAPI 3.1.0 for the Switchboard API', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('Switchboard API');
    expect(document.servers).toEqual([{ url: '/' }]);
  });

  test('when it is checked against the official OpenAPI 3.1 schema, then it is valid', () => {
    const result = validateWithOpenApiSchema(document);
    expect(result.errors).toBeUndefined();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  test('when getMedia is described, then its success is a file of any content type, not JSON', () => {
    const getMedia = document.paths['/api/svc/getMedia']?.get as {
      responses: Record<string, { content: Record<string, unknown> }>;
    };
    expect(Object.keys(getMedia.responses['200']!.content)).toEqual(['*/*']);
    expect(Object.keys(getMedia.responses['4XX']!.content)).toEqual(['application/json']);
  });

  test('when it is serialized, then JSON round-trips it unchanged', () => {
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });

  test('when every operation is listed, then each has a path, a unique operationId and responses', () => {
    expect(operations).toHaveLength(ALL_OPERATIONS.length);
    const ids = operations.map(([, op]) => (op as { operationId: string }).operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of ALL_OPERATIONS) {
      const described = document.paths[operation.path]?.[operation.method] as {
        operationId: string;
        responses: Record<string, unknown>;
      };
      expect(described.operationId).toBe(operation.operationId);
      expect(Object.keys(described.responses)).toEqual(expect.arrayContaining(['4XX', '5XX']));
    }
  });

  test('when an error range is answered, then it uses the spec error envelope', () => {
    expect(document.components.schemas.ErrorResponse).toMatchObject({
      required: ['status', 'message', 'code'],
    });
    const me = document.paths['/api/svc/me']?.get as { responses: Record<string, unknown> };
    expect(me.responses['401']).toEqual({
      description: 'Invalid token',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    });
  });

  test('when an operation needs the API token, then the query token and bearer schemes are offered', () => {
    const me = document.paths['/api/svc/me']?.get as { security: unknown };
    expect(me.security).toEqual([{ tokenQuery: [] }, { tokenBearer: [] }]);
    expect(document.components.securitySchemes.tokenQuery).toMatchObject({
      type: 'apiKey',
      in: 'query',
      name: 'token',
    });
  });

  test('when a path has a placeholder, then it is declared as a required path parameter', () => {
    const createToken = document.paths['/admin/organizations/{company_id}/tokens']?.post as {
      parameters: unknown[];
    };
    expect(createToken.parameters).toEqual([
      expect.objectContaining({ name: 'company_id', in: 'path', required: true }),
    ]);
  });

  test('when a request body has a default, then the input schema does not require it', () => {
    const create = document.paths['/admin/organizations']?.post as {
      requestBody: { content: { 'application/json': { schema: { required: string[] } } } };
    };
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['name']);
  });

  test('when every body field is optional, then the body itself is optional, unless it must name one field', () => {
    const bodyRequired = (path: string, method: string) =>
      (document.paths[path]?.[method] as { requestBody: { required: boolean } }).requestBody
        .required;
    expect(bodyRequired('/developer/webhooks/{id}/test', 'post')).toBe(false);
    expect(bodyRequired('/api/svc/updateAIBotSettings', 'post')).toBe(false);
    // An update with nothing in it is refused, so its body is not optional.
    expect(bodyRequired('/developer/webhooks/{id}', 'put')).toBe(true);
    expect(bodyRequired('/admin/organizations/{company_id}/channel', 'put')).toBe(true);
    expect(bodyRequired('/developer/webhooks', 'post')).toBe(true);
  });
});

describe('gateway operations', () => {
  test('when markMessageRead is routed, then messaging owns it', () => {
    expect(API_OPERATION_OWNERS.markMessageRead).toBe('messaging');
  });

  test('when the gateway API is listed, then it has the admin routes (phone numbers included) and /me', () => {
    expect(
      GATEWAY_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path} ${op.auth}`),
    ).toEqual([
      'POST /admin/organizations admin',
      'POST /admin/organizations/{company_id}/tokens admin',
      'DELETE /admin/tokens/{token_id} admin',
      'PUT /admin/organizations/{company_id}/channel admin',
      'GET /api/svc/me token',
      'POST /admin/organizations/{company_id}/phone-numbers admin',
      'GET /admin/organizations/{company_id}/phone-numbers admin',
    ]);
  });

  test("when the routing table is derived from the definitions, then every /api/svc operation but the gateway's own is forwarded to the service its definitions name", () => {
    const forwarded = [...API_OPERATIONS.values()].filter(({ owner }) => owner !== 'gateway');
    expect(Object.keys(API_OPERATION_OWNERS).sort()).toEqual(
      forwarded.map(({ name }) => name).sort(),
    );
    for (const operation of ALL_OPERATIONS.filter(({ path }) => /^\/api\/svc\/\w+$/.test(path))) {
      expect(API_OPERATIONS.get(operation.path.slice('/api/svc/'.length) as never)).toMatchObject({
        owner: operation.owner,
        methods: expect.arrayContaining([operation.method]),
      });
    }
    expect(API_OPERATION_OWNERS.getMedia).toBe('messaging');
    expect(API_OPERATION_OWNERS.assignConversation).toBe('messaging');
    expect(API_OPERATION_OWNERS.setConversationStatus).toBe('messaging');
    expect(API_OPERATION_OWNERS.updateContactBots).toBe('campaigns');
    expect(API_OPERATION_OWNERS).not.toHaveProperty('me');
    expect(API_OPERATION_OWNERS).not.toHaveProperty('getAgents');
    expect(new Set(Object.values(API_OPERATION_OWNERS))).toEqual(
      new Set(['messaging', 'contacts', 'campaigns']),
    );
    expect(API_OPERATION_OWNERS.updateAIBot).toBe('contacts');
    expect(API_OPERATION_OWNERS.sendCampaignMessageToPhoneNumber).toBe('campaigns');
    expect(API_OPERATION_OWNERS.accountStatus).toBe('messaging');
    expect(API_OPERATION_OWNERS.getAIBotSettings).toBe('campaigns');
    expect(API_OPERATION_OWNERS.updateAIBotSettings).toBe('campaigns');
  });

  test('when an operation accepts two methods, then its route takes both, in the order defined', () => {
    expect(API_OPERATIONS.get('updateContact')?.methods).toEqual(['post', 'put']);
    expect(API_OPERATIONS.get('deleteFlow')?.methods).toEqual(['delete', 'post']);
    expect(operationsServedBy('contacts').map(({ name }) => name)).toContain('updateContact');
  });

  test('when two definitions of one path name different owners, then the registry refuses them', () => {
    const [first] = ALL_OPERATIONS.filter(({ path }) => path === '/api/svc/updateContact');
    expect(() =>
      apiOperationsOf([first!, { ...first!, method: 'put', owner: 'messaging' }]),
    ).toThrow('updateContact is defined with two owners, contacts and messaging');
  });
});
