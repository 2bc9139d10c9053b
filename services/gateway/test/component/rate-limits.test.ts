import { ErrorResponseSchema, PLAN_REQUEST_RATES } from '@switchboard/contracts';
import { startGatewayStack, type GatewayStack } from '../support/gateway-harness';
import { startService as startGateway } from '../../src/start-service';
import {
  dropDatabasesWithPrefix,
  freePortBlock,
  isolatedAmqpUrl,
  uniquePrefix,
} from '../../../../test/support/test-infra';

jest.setTimeout(60_000);

const prefix = uniquePrefix('gwlimits');
let stack: GatewayStack;
let broker: Awaited<ReturnType<typeof isolatedAmqpUrl>>;
let metricsPort: number;
let lockedOut: { token: string };
let shared: { token: string };

beforeAll(async () => {
  broker = await isolatedAmqpUrl('gwlimits');
  metricsPort = await freePortBlock(1);
  stack = await startGatewayStack({
    dbPrefix: prefix,
    amqpUrl: broker.url,
    gatewayEnv: {
      METRICS_PORT: String(metricsPort),
      API_RATE_SCALE: '1',
      ADMIN_RATE_PER_SECOND: '1',
      FAILED_AUTH_PER_MINUTE: '6',
      // One proxy in front: the client is the last address it adds to X-Forwarded-For.
      TRUST_PROXY_HOPS: '1',
    },
  });
  // Made before the admin API's bucket is emptied by a test below.
  lockedOut = await stack.createOrganization('premium');
  shared = await stack.createOrganization('free');
});

afterAll(async () => {
  await stack.stop();
  await dropDatabasesWithPrefix(prefix);
  await broker.drop();
});

const me = (token: string) =>
  fetch(`${stack.gateway.url}/api/svc/me`, { headers: { authorization: `Bearer ${token}` } });

const adminTokens = (company_id: number) =>
  fetch(`${stack.gateway.url}/admin/organizations/${company_id}/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminToken}` },
  });

async function newToken(company_id: number): Promise<string> {
  const response = await adminTokens(company_id);
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

/** Asks until the first refusal; the answers before it and the refusal. */
async function untilRefused(ask: () => Promise<Response>, atMost: number) {
  const allowed: Response[] = [];
  for (let i = 0; i < atMost; i++) {
    const response = await ask();
    if (response.status === 429) return { allowed, refused: response };
    allowed.push(response);
  }
  return { allowed, refused: undefined };
}

async function expectRateLimited(response: Response | undefined, what: string) {
  expect(response?.status).toBe(429);
  const body = ErrorResponseSchema.parse(await response!.json());
  expect(body).toMatchObject({ status: 'error', code: 'rate_limited' });
  expect(body.message).toContain(what);
  expect(Number(response!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('gateway rate limits', () => {
  test("when one token spends its plan's burst, then it gets 429 with Retry-After and RateLimit fields, and another organization is unaffected", async () => {
    const free = PLAN_REQUEST_RATES.free;
    const a = await stack.createOrganization('free');
    const b = await stack.createOrganization('free');

    const first = await me(a.token);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe(
      `"token";q=${free.token.burst};w=${free.token.burst / free.token.perSecond}, ` +
        `"organization";q=${free.organization.burst};w=${free.organization.burst / free.organization.perSecond}`,
    );
    expect(first.headers.get('ratelimit')).toMatch(
      new RegExp(`^"token";r=${free.token.burst - 1};t=\\d+, "organization";r=\\d+;t=\\d+$`),
    );

    const { allowed, refused } = await untilRefused(() => me(a.token), free.token.burst * 2);
    // Refills while the loop runs may allow a request or two more than the burst.
    expect(allowed.length + 1).toBeGreaterThanOrEqual(free.token.burst);
    expect(allowed.length + 1).toBeLessThanOrEqual(free.token.burst + 3);
    await expectRateLimited(refused, 'this API token');
    expect(refused!.headers.get('ratelimit')).toMatch(/^"token";r=0;t=\d+, /);

    expect((await me(b.token)).status).toBe(200);
  });

  test("when an organization's tokens together spend its burst, then the next request gets 429 for the organization", async () => {
    const free = PLAN_REQUEST_RATES.free;
    const org = await stack.createOrganization('free');
    const company = org.organization.company_id;
    const tokens = [org.token, await newToken(company), await newToken(company)];
    // Three tokens' bursts exceed the organization's: taking turns, the organization runs out first.
    let turn = 0;
    const { allowed, refused } = await untilRefused(
      () => me(tokens[turn++ % tokens.length]!),
      free.organization.burst * 2,
    );
    expect(allowed.length).toBeGreaterThanOrEqual(free.organization.burst);
    await expectRateLimited(refused, 'this organization');
    expect(refused!.headers.get('ratelimit')).toMatch(/"organization";r=0;t=\d+$/);
  });

  test('when the admin API is asked faster than its rate, then it answers 429 before doing anything', async () => {
    const { refused } = await untilRefused(
      () =>
        fetch(`${stack.gateway.url}/admin/organizations/999999/tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${stack.adminToken}` },
        }),
      30,
    );
    await expectRateLimited(refused, 'the admin API');
    expect(refused!.headers.get('ratelimit-policy')).toBe('"admin";q=10;w=10');
  });

  test("when the gateway's public port is asked for /metrics, then it answers 404, and the metrics listener serves them", async () => {
    expect((await fetch(`${stack.gateway.url}/metrics`)).status).toBe(404);
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('switchboard_http_requests_total');
  });

  test('when two replicas share the rates, then each enforces half of every rate and burst', async () => {
    const free = PLAN_REQUEST_RATES.free;
    const second = await startGateway({
      ...stack.gateway.config,
      PORT: 0,
      METRICS_PORT: undefined,
      GATEWAY_REPLICAS: 2,
    });
    try {
      const org = shared;
      const answer = await fetch(`${second.url}/api/svc/me`, {
        headers: { authorization: `Bearer ${org.token}` },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-policy')).toBe(
        `"token";q=${free.token.burst / 2};w=2, "organization";q=${free.organization.burst / 2};w=2`,
      );
      const { allowed, refused } = await untilRefused(
        () =>
          fetch(`${second.url}/api/svc/me`, { headers: { authorization: `Bearer ${org.token}` } }),
        free.token.burst * 2,
      );
      expect(allowed.length + 1).toBeLessThanOrEqual(free.token.burst / 2 + 2);
      await expectRateLimited(refused, 'this API token');
    } finally {
      await second.stop();
    }
  });

  test('when one forwarded client keeps sending with a wrong token, then that client is locked out of every route and another client behind the same proxy is not', async () => {
    const send = (client: string, token: string) =>
      fetch(`${stack.gateway.url}/api/svc/sendMessageToPhoneNumber`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': `198.51.100.9, ${client}`,
        },
        body: JSON.stringify({ token, phone: '393331234567', message: 'hi' }),
      });
    const { allowed, refused } = await untilRefused(() => send('203.0.113.7', 'not-a-token'), 20);
    expect(allowed.map((response) => response.status)).toEqual(Array(6).fill(401));
    await expectRateLimited(refused, 'failed token attempts');
    const meFrom = (client: string) =>
      fetch(`${stack.gateway.url}/api/svc/me`, {
        headers: { authorization: `Bearer ${shared.token}`, 'x-forwarded-for': client },
      });
    await expectRateLimited(await meFrom('203.0.113.7'), 'failed token attempts');
    expect((await meFrom('203.0.113.8')).status).toBe(200);
  });

  // Last: it locks this test process's address out of token attempts.
  test('when an address keeps trying wrong tokens, then it gets 429 before any lookup, valid tokens included', async () => {
    const { allowed, refused } = await untilRefused(() => me('not-a-token'), 20);
    expect(allowed.map((response) => response.status)).toEqual(Array(6).fill(401));
    await expectRateLimited(refused, 'failed token attempts');
    await expectRateLimited(await me(lockedOut.token), 'failed token attempts');
  });
});
