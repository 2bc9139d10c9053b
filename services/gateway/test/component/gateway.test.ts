import mongoose from 'mongoose';
import { CreateTokenResponseSchema, ErrorResponseSchema } from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import { gatewayConfigSchema, type GatewayConfig } from '../../src/config';
import { startService } from '../../src/start-service';
import { hashToken } from '../../src/domain/api-tokens';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  randomSecret,
  uniquePrefix,
} from '../../../../test/support/test-infra';

const prefix = uniquePrefix('gateway');
const adminToken = randomSecret();
let gateway: RunningService<GatewayConfig>;

beforeAll(async () => {
  gateway = await startService(
    gatewayConfigSchema.parse({
      PORT: '0',
      MONGODB_URL,
      MONGODB_DB_PREFIX: prefix,
      ADMIN_API_TOKEN: adminToken,
      INTERNAL_API_SECRET: randomSecret(),
      LOG_LEVEL: 'silent',
      TOKEN_CACHE_TTL_MS: '60000',
      // Nothing listens here: every owner is "down".
      CONTACTS_URL: 'http://127.0.0.1:1',
      PROXY_TIMEOUT_MS: '1000',
    }),
  );
});

afterAll(async () => {
  await gateway.stop();
  await dropDatabasesWithPrefix(prefix);
});

const admin = (path: string, init: RequestInit = {}) =>
  fetch(gateway.url + path, {
    ...init,
    headers: {
      authorization: `Bearer ${adminToken}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });

async function newOrganization(plan = 'free') {
  const response = await admin('/admin/organizations', {
    method: 'POST',
    body: JSON.stringify({ name: 'Org', plan }),
  });
  return (await response.json()) as {
    organization: { company_id: number };
    token: string;
    token_id: string;
  };
}

describe('gateway organizations and tokens', () => {
  test('when an organization is created, then only the hash of its token is stored', async () => {
    const { token, token_id } = await newOrganization();
    const db = gateway.db;
    const stored = await db.collection('api_tokens').findOne({ token_id });
    expect(stored?.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(stored)).not.toContain(token);
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
    expect((await fetch(`${gateway.url}/api/svc/me?token=${token}`)).status).toBe(200);

    const revoked = await admin(`/admin/tokens/${token_id}`, { method: 'DELETE' });
    expect(await revoked.json()).toEqual({ status: 'success', token_id, revoked: true });

    expect((await fetch(`${gateway.url}/api/svc/me?token=${token}`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/api/svc/me?token=${second.token}`)).status).toBe(200);
    expect((await admin(`/admin/tokens/${token_id}`, { method: 'DELETE' })).status).toBe(404);
  });

  test('when a token is issued for an unknown organization, then the answer is 404', async () => {
    const response = await admin('/admin/organizations/999999/tokens', { method: 'POST' });
    expect(response.status).toBe(404);
  });

  test('when the token comes as a bearer header, then it authenticates too', async () => {
    const { token, organization } = await newOrganization('premium');
    const response = await fetch(`${gateway.url}/api/svc/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await response.json()).toMatchObject({
      status: 'success',
      organization: { company_id: organization.company_id, plan: 'premium' },
    });
  });

  test('when a token value is an operator object, then it is refused as invalid', async () => {
    const response = await fetch(`${gateway.url}/api/svc/me`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: { $gt: '' } }),
    });
    expect(response.status).toBe(401);
  });

  test('when the owner does not answer, then the gateway answers 503 within its timeout', async () => {
    const { token } = await newOrganization();
    const started = Date.now();
    const response = await fetch(`${gateway.url}/api/svc/getContacts?token=${token}`);
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  test('when the JSON body is malformed, then the answer is 400 and not 401 or 5xx', async () => {
    const response = await fetch(`${gateway.url}/api/svc/makeContact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"token": ',
    });
    expect(response.status).toBe(400);
  });
});

afterAll(() => mongoose.disconnect());
