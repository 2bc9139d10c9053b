import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateTokenResponseSchema,
  ErrorResponseSchema,
  GATEWAY_INTERNAL_PATHS,
  INTERNAL_SECRET_HEADER,
  OrganizationResponseSchema,
  UpdateChannelResponseSchema,
  InternalUsageQuerySchema,
  InternalUsageResponseSchema,
  RECEIVE_BATCH_PATH,
  ReceiveBatchRequestSchema,
  ReceiveBatchResponseSchema,
  type ReceiveBatchItem,
  type ReceiveBatchResult,
  UsageResponseSchema,
  WEBHOOK_OPERATIONS,
  orgHeaders,
  successResponse,
} from '@switchboard/contracts';
import { hashToken } from '../../src/domain/api-tokens';
import {
  createContractStub,
  operationRoute,
  stopInOrder,
  stubRoute,
  type ContractStub,
} from '../../../../test/support/contract-stub';
import { startGatewayStack, type GatewayStack } from '../support/gateway-harness';
import {
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  uniquePrefix,
} from '../../../../test/support/test-infra';

// Starting the stack creates both services' indexes, which takes seconds on a loaded machine.
jest.setTimeout(30_000);

const prefix = uniquePrefix('gateway');
let stack: GatewayStack;
let broker: Awaited<ReturnType<typeof isolatedAmqpUrl>>;
const MESSAGING_USAGE = {
  method: 'get',
  path: '/internal/usage/{company_id}',
  request: { query: InternalUsageQuerySchema },
  responses: { 200: InternalUsageResponseSchema },
} as const;

// Takes connections and requests and never answers: campaigns is "hung".
let hung: Server;
// Webhooks' list operation, checked against its contract.
let webhooks: ContractStub;
// Inbound's provider webhook route: what the gateway passes on of the provider's signed call.
let inbound: ContractStub;

beforeAll(async () => {
  broker = await isolatedAmqpUrl('gateway');
  hung = createServer(() => undefined);
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  webhooks = await createContractStub('webhooks', [
    stubRoute(operationRoute(listWebhooks), () => ({
      status: 200,
      body: {
        status: 'success',
        webhooks: [],
        meta: { total: 0, page: 1, per_page: 20, next_page: null },
      },
    })),
  ]);
  inbound = await createContractStub('inbound', [
    stubRoute(PROVIDER_WEBHOOK, () => ({ status: 200, body: { status: 'success' } })),
    stubRoute(RECEIVE_BATCH, (request) =>
      answerBatch(request.body as { webhooks: ReceiveBatchItem[] }),
    ),
  ]);
  stack = await startGatewayStack({
    dbPrefix: prefix,
    amqpUrl: broker.url,
    // Messaging's monthly count, for getUsage: it answers, while campaigns and contacts do not.
    messagingRoutes: [
      stubRoute(MESSAGING_USAGE, () => ({ status: 200, body: { status: 'success', used: 0 } })),
    ],
    // Nothing listens on port 1: contacts is "down".
    gatewayEnv: {
      CONTACTS_URL: 'http://127.0.0.1:1',
      CAMPAIGNS_URL: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
      WEBHOOKS_URL: webhooks.url,
      INBOUND_URL: inbound.url,
      PROXY_TIMEOUT_MS: '1000',
    },
  });
});

afterAll(async () => {
  hung.closeAllConnections();
  await new Promise((resolve) => hung.close(resolve));
  await stopInOrder(
    () => stack.stop(),
    () => webhooks.stop(),
    () => inbound.stop(),
    () => dropDatabasesWithPrefix(prefix),
    () => broker.drop(),
  );
});

const gatewayUrl = () => stack.gateway.url;
/** POST /webhook/svc/receive/{token}: the provider's signed webhook, which inbound answers 200. */
const PROVIDER_WEBHOOK = {
  method: 'post',
  path: '/webhook/svc/receive/{token}',
  responses: { 200: successResponse({}) },
} as const;
/** POST /internal/webhooks/receive-batch: the webhooks the gateway received together. */
const RECEIVE_BATCH = {
  method: 'post',
  path: RECEIVE_BATCH_PATH,
  request: { body: ReceiveBatchRequestSchema },
  responses: { 200: ReceiveBatchResponseSchema },
} as const;
/**
 * Inbound's answer to a batch, as the test sets it: by default each webhook is stored, except one
 * whose token starts with `unknown` (404, as inbound answers an unknown URL).
 */
let answerBatch: (batch: { webhooks: ReceiveBatchItem[] }) => Promise<{
  status: number;
  body: unknown;
}>;
const storeEach = async (batch: { webhooks: ReceiveBatchItem[] }) => ({
  status: 200,
  body: {
    status: 'success',
    results: batch.webhooks.map((webhook): ReceiveBatchResult =>
      webhook.token.startsWith('unknown')
        ? {
            status: 404,
            body: { status: 'error', code: 'not_found', message: 'Unknown webhook URL' },
          }
        : { status: 200, body: { status: 'success' } },
    ),
  },
});
answerBatch = storeEach;
const batchCalls = () =>
  inbound.calls.filter((call) => call.route === `POST ${RECEIVE_BATCH_PATH}`);
const webhooksOf = (call: { request: { body: unknown } }) =>
  (call.request.body as { webhooks: ReceiveBatchItem[] }).webhooks;
const decoded = (webhook: ReceiveBatchItem) => Buffer.from(webhook.body, 'base64').toString();

const listWebhooks = WEBHOOK_OPERATIONS.find(
  (operation) => operation.operationId === 'listWebhooks',
)!;

const admin = (path: string, init: RequestInit = {}) =>
  fetch(gatewayUrl() + path, {
    ...init,
    headers: {
      authorization: `Bearer ${stack.adminToken}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });

const newOrganization = (plan: 'free' | 'standard' | 'premium' = 'free') =>
  stack.createOrganization(plan);

describe('gateway organizations and tokens', () => {
  test('when another service asks for an organization, then the answer parses, and the route is closed without the internal secret', async () => {
    const { organization } = await newOrganization('premium');
    const url = `${gatewayUrl()}${GATEWAY_INTERNAL_PATHS.organization(organization.company_id)}`;
    const secret = { [INTERNAL_SECRET_HEADER]: stack.internalSecret };
    const answer = await fetch(url, { headers: secret });
    expect(answer.status).toBe(200);
    expect(OrganizationResponseSchema.parse(await answer.json()).organization).toMatchObject({
      company_id: organization.company_id,
      plan: 'premium',
    });
    expect((await fetch(url)).status).toBe(403);
    const unknown = await fetch(
      `${gatewayUrl()}${GATEWAY_INTERNAL_PATHS.organization(99_999_999)}`,
      { headers: secret },
    );
    expect(unknown.status).toBe(404);
  });

  test('when an organization is created, then only the hash of its token is stored', async () => {
    const { token, token_id } = await newOrganization();
    const db = stack.gateway.db;
    const stored = await db.collection('api_tokens').findOne({ token_id });
    expect(stored?.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  test('when an organization is created, then messaging is asked for its channel and the answer shows it once', async () => {
    const { organization, channel } = await newOrganization();
    const asked = stack.messaging.calls.filter((call) => call.route === 'POST /internal/channels');
    expect(asked.map((call) => call.request.body)).toContainEqual({
      company_id: organization.company_id,
      name: organization.name,
    });
    expect(channel).toEqual(stack.channels.get(organization.company_id));
    const stored = await stack.gateway.db
      .collection('organizations')
      .findOne({ company_id: organization.company_id });
    expect(JSON.stringify(stored)).not.toContain(channel.app_secret);
    expect(JSON.stringify(stored)).not.toContain(channel.verify_token);
  });

  test('when messaging cannot provision the channel, then creation answers 503 and leaves no organization', async () => {
    const before = await stack.gateway.db.collection('organizations').countDocuments();
    await stack.messaging.close();
    try {
      const response = await admin('/admin/organizations', {
        method: 'POST',
        body: JSON.stringify({ name: 'Unlucky' }),
      });
      expect(response.status).toBe(503);
      expect(await stack.gateway.db.collection('organizations').countDocuments()).toBe(before);
      expect(
        await stack.gateway.db.collection('api_tokens').countDocuments({ company_id: before + 1 }),
      ).toBe(0);
    } finally {
      await stack.messaging.reopen();
    }
  });

  test('when the admin points a channel at Meta, then the changes go to messaging as given and its answer is shown', async () => {
    const { organization } = await newOrganization();
    const changes = {
      provider_base_url: 'https://graph.facebook.com',
      api_version: 'v24.0',
      phone_number_id: '106540352242922',
      access_token: 'EAAG-secret-token',
    };
    const response = await admin(`/admin/organizations/${organization.company_id}/channel`, {
      method: 'PUT',
      body: JSON.stringify(changes),
    });
    expect(response.status).toBe(200);
    const { channel } = UpdateChannelResponseSchema.parse(await response.json());
    expect(channel).toMatchObject({
      company_id: organization.company_id,
      provider_base_url: 'https://graph.facebook.com',
      phone_number_id: '106540352242922',
    });
    const asked = stack.messaging.calls.filter(
      (call) => call.route === 'PUT /internal/channels/{company_id}',
    );
    expect(asked.at(-1)?.request).toMatchObject({
      params: { company_id: String(organization.company_id) },
      body: changes,
    });
  });

  test('when a channel update is invalid or for an unknown organization, then 422 or 404', async () => {
    const { organization } = await newOrganization();
    const invalid = await admin(`/admin/organizations/${organization.company_id}/channel`, {
      method: 'PUT',
      body: JSON.stringify({ api_version: '24', phone_number_id: '+1 555' }),
    });
    expect(invalid.status).toBe(422);
    const message = ErrorResponseSchema.parse(await invalid.json()).message;
    expect(message).toContain('api_version');
    expect(message).toContain('phone_number_id');
    const unknown = await admin('/admin/organizations/999999/channel', {
      method: 'PUT',
      body: JSON.stringify({ api_version: 'v24.0' }),
    });
    expect(unknown.status).toBe(404);
  });

  test('when the create request is invalid, then the answer is 422 naming the field', async () => {
    const response = await admin('/admin/organizations', {
      method: 'POST',
      body: JSON.stringify({ name: '', plan: 'gold' }),
    });
    expect(response.status).toBe(422);
    const body = ErrorResponseSchema.parse(await response.json());
    expect(body.message).toContain('name');
    expect(body.message).toContain('plan');
  });

  test('when a token is revoked, then it stops working at once and other tokens keep working', async () => {
    const { organization, token, token_id } = await newOrganization();
    const second = CreateTokenResponseSchema.parse(
      await (
        await admin(`/admin/organizations/${organization.company_id}/tokens`, { method: 'POST' })
      ).json(),
    );
    expect((await fetch(`${gatewayUrl()}/api/svc/me?token=${token}`)).status).toBe(200);

    const revoked = await admin(`/admin/tokens/${token_id}`, { method: 'DELETE' });
    expect(await revoked.json()).toEqual({ status: 'success', token_id, revoked: true });

    expect((await fetch(`${gatewayUrl()}/api/svc/me?token=${token}`)).status).toBe(401);
    expect((await fetch(`${gatewayUrl()}/api/svc/me?token=${second.token}`)).status).toBe(200);
    expect((await admin(`/admin/tokens/${token_id}`, { method: 'DELETE' })).status).toBe(404);
  });

  test('when a token is issued for an unknown organization, then the answer is 404', async () => {
    const response = await admin('/admin/organizations/999999/tokens', { method: 'POST' });
    expect(response.status).toBe(404);
  });

  test('when the token comes as a bearer header, then it authenticates too', async () => {
    const { token, organization } = await newOrganization('premium');
    const response = await fetch(`${gatewayUrl()}/api/svc/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await response.json()).toMatchObject({
      status: 'success',
      organization: { company_id: organization.company_id, plan: 'premium' },
    });
  });

  test('when a token value is an operator object, then it is refused as invalid', async () => {
    // A POST operation: /me is GET only, and a wrong method is answered 405 before any token.
    const response = await fetch(`${gatewayUrl()}/api/svc/makeContact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: { $gt: '' } }),
    });
    expect(response.status).toBe(401);
  });

  test('when the owner does not answer, then the gateway answers 503 within its timeout', async () => {
    const { token } = await newOrganization();
    const started = Date.now();
    const response = await fetch(`${gatewayUrl()}/api/svc/getContacts?token=${token}`);
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  test('when the owner takes the request and never answers, then the gateway answers 503 dependency_unavailable after PROXY_TIMEOUT_MS', async () => {
    const { token } = await newOrganization();
    const started = Date.now();
    const response = await fetch(`${gatewayUrl()}/api/svc/getCampaigns?token=${token}`);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(503);
    expect(ErrorResponseSchema.parse(await response.json()).code).toBe('dependency_unavailable');
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3_000);
  });

  test('when some counters do not answer, then getUsage answers the others and names those unavailable', async () => {
    const { token } = await newOrganization('standard');
    const response = await fetch(`${gatewayUrl()}/api/svc/getUsage?token=${token}`);
    expect(response.status).toBe(200);
    // Campaigns hangs past the timeout and contacts refuses; messaging and the users answer.
    expect(UsageResponseSchema.parse(await response.json())).toMatchObject({
      plan: 'standard',
      usage: {
        messages: { used: 0, limit: null },
        campaigns: { used: null, limit: 100 },
        contacts: { used: null, limit: null },
        agents: { used: 0, limit: 10 },
      },
      unavailable: ['campaigns', 'contacts'],
    });
  });

  test('when the JSON body is malformed, then the answer is 400 and not 401 or 5xx', async () => {
    const response = await fetch(`${gatewayUrl()}/api/svc/makeContact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"token": ',
    });
    expect(response.status).toBe(400);
  });

  test('when a token is valid, then /developer/webhooks reaches webhooks with the organization in trusted headers and no token', async () => {
    const { token, organization } = await newOrganization('standard');
    const response = await fetch(`${gatewayUrl()}/developer/webhooks?token=${token}`);
    expect(response.status).toBe(200);
    const forwarded = webhooks.calls.at(-1)?.request;
    expect(forwarded?.headers).toMatchObject(
      orgHeaders({
        company_id: organization.company_id,
        plan: 'standard',
        plan_started_at: new Date(organization.plan_started_at),
      }),
    );
    expect(forwarded?.query).toEqual({});
  });

  test('when the token is wrong, then the gateway answers 401 and the webhooks service is not asked', async () => {
    const before = webhooks.calls.length;
    const response = await fetch(`${gatewayUrl()}/developer/webhooks?token=not-a-token`);
    expect(response.status).toBe(401);
    expect(ErrorResponseSchema.parse(await response.json()).message).toBe('Invalid token');
    expect(webhooks.calls.length).toBe(before);
  });

  test('when the provider posts a signed webhook, then inbound gets its bytes and signature unchanged, for no organization', async () => {
    // Meta escapes non-ASCII as \uXXXX and signs that text; a re-encoded body would not verify.
    const body =
      '{"object":"whatsapp_business_account","entry":[{"id":"1","text":"p\\u00e2tes \\ud83d\\udc4d"}]}';
    const token = 'a'.repeat(43);
    const response = await fetch(`${gatewayUrl()}/webhook/svc/receive/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=abc' },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'success' });
    const passed = batchCalls().at(-1)!;
    expect(webhooksOf(passed)).toEqual([
      { token, signature: 'sha256=abc', body: Buffer.from(body).toString('base64') },
    ]);
    expect(decoded(webhooksOf(passed)[0]!)).toBe(body);
    expect(passed.request.headers['x-org-id']).toBeUndefined();
    expect(passed.request.headers[INTERNAL_SECRET_HEADER]).toBeDefined();
  });

  test('when webhooks arrive while one is with inbound, then they travel to inbound in one request and each provider request gets its own answer', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    answerBatch = async (batch) => {
      // Only the first batch waits: the others gather behind it meanwhile.
      answerBatch = storeEach;
      await held;
      return storeEach(batch);
    };
    const before = batchCalls().length;
    const provider = (token: string, n: number) =>
      fetch(`${gatewayUrl()}/webhook/svc/receive/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${n}` },
        body: `{"object":"whatsapp_business_account","n":${n}}`,
      });
    const first = provider('c'.repeat(43), 0);
    const deadline = Date.now() + 10_000;
    while (batchCalls().length === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(batchCalls().length).toBe(before + 1);
    const together = [
      provider('d'.repeat(43), 1),
      provider('unknown'.padEnd(43, 'x'), 2),
      provider('e'.repeat(43), 3),
    ];
    // Time for the three to reach the gateway while the first batch is held.
    await new Promise((resolve) => setTimeout(resolve, 500));
    release();
    const answers = await Promise.all(
      [first, ...together].map(async (answer) => ({
        status: (await answer).status,
        body: await (await answer).json(),
      })),
    );
    expect(answers).toEqual([
      { status: 200, body: { status: 'success' } },
      { status: 200, body: { status: 'success' } },
      { status: 404, body: { status: 'error', code: 'not_found', message: 'Unknown webhook URL' } },
      { status: 200, body: { status: 'success' } },
    ]);
    const calls = batchCalls().slice(before);
    expect(calls.length).toBe(2);
    expect(webhooksOf(calls[0]!).map(decoded)).toEqual([
      '{"object":"whatsapp_business_account","n":0}',
    ]);
    expect(
      webhooksOf(calls[1]!)
        .map((webhook) => [webhook.token[0], webhook.signature, decoded(webhook)])
        .sort(),
    ).toEqual([
      ['d', 'sha256=1', '{"object":"whatsapp_business_account","n":1}'],
      ['e', 'sha256=3', '{"object":"whatsapp_business_account","n":3}'],
      ['u', 'sha256=2', '{"object":"whatsapp_business_account","n":2}'],
    ]);
  });

  test('when inbound fails a batch or is down, then each provider request gets a 5xx (the provider sends it again)', async () => {
    answerBatch = async () => ({ status: 500, body: { status: 'error', message: 'boom' } });
    const failed = await Promise.all(
      [1, 2].map((n) =>
        fetch(`${gatewayUrl()}/webhook/svc/receive/${'f'.repeat(43)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=x' },
          body: `{"n":${n}}`,
        }),
      ),
    );
    answerBatch = storeEach;
    for (const answer of failed) {
      expect(answer.status).toBe(503);
      expect(await answer.json()).toMatchObject({
        status: 'error',
        code: 'dependency_unavailable',
      });
    }
  });

  test('when the provider posts a webhook chunked, without a stated length, then inbound still gets its bytes unchanged', async () => {
    // Only bodies of stated length take the gateway's streaming fast path; this one takes express.
    const body = '{"object":"whatsapp_business_account","entry":[{"id":"2","text":"chunked"}]}';
    const bytes = new TextEncoder().encode(body);
    const token = 'b'.repeat(43);
    const response = await fetch(`${gatewayUrl()}/webhook/svc/receive/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=def' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.subarray(0, 20));
          controller.enqueue(bytes.subarray(20));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
    const passed = inbound.calls.at(-1)?.request;
    expect(passed?.params).toEqual({ token });
    expect(passed?.text).toBe(body);
    expect(passed?.headers['x-hub-signature-256']).toBe('sha256=def');
  });
});
