import { createHmac } from 'node:crypto';
import mongoose from 'mongoose';
import {
  ErrorResponseSchema,
  INTERNAL_SECRET_HEADER,
  MeResponseSchema,
  UpdateChannelResponseSchema,
} from '@switchboard/contracts';
import type { LaunchedSystem } from '../../scripts/launcher';
import { startE2eSystem, type E2eSystem } from '../support/e2e-system';
import { MONGODB_URL, jsonBody } from '../support/test-infra';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let system: LaunchedSystem;
let gateway: string;
let adminToken: string;
let internalSecret: string;
let output: string[];

beforeAll(async () => {
  e2e = await startE2eSystem('e2e', { LOG_LEVEL: 'info', PROXY_TIMEOUT_MS: '3000' });
  ({ system, gateway, adminToken, internalSecret, output } = e2e);
});

afterAll(async () => {
  await e2e?.stop();
});

const createOrganization = (name: string) => e2e.createOrganization(name);

describe('the whole system, every service its own process, through the gateway', () => {
  test('when the admin creates an organization, then its token authenticates GET /api/svc/me', async () => {
    const created = await createOrganization('Acme');
    expect(created.organization).toMatchObject({ name: 'Acme', plan: 'free' });
    expect(created.channel.inbound_url).toMatch(new RegExp(`^${gateway}/webhook/svc/receive/`));

    const response = await fetch(`${gateway}/api/svc/me?token=${created.token}`);
    expect(response.status).toBe(200);
    const me = MeResponseSchema.parse(await jsonBody(response));
    expect(me.organization).toEqual(created.organization);
  });

  test('when the admin token is wrong, then creating an organization is refused with 401', async () => {
    const response = await fetch(`${gateway}/admin/organizations`, {
      method: 'POST',
      headers: { authorization: 'Bearer not-the-admin-token', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Nope' }),
    });
    expect(response.status).toBe(401);
    expect(ErrorResponseSchema.parse(await jsonBody(response)).code).toBe('invalid_token');
  });

  test('when a POST carries the token in a JSON body, then it reaches its owner with that organization', async () => {
    const mine = await createOrganization('Json Co');
    const theirs = await createOrganization('Other Co');
    const response = await fetch(`${gateway}/api/svc/makeContact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: mine.token, name: 'Ana', phone: '393471234567' }),
    });
    expect(response.status).toBe(201);
    const { contact } = await jsonBody(response);
    // Stored for the token's organization, and for no other.
    const own = await fetch(
      `${gateway}/api/svc/getSingleContact?token=${mine.token}&contact_id=${contact.id}`,
    );
    expect(own.status).toBe(200);
    const other = await fetch(
      `${gateway}/api/svc/getSingleContact?token=${theirs.token}&contact_id=${contact.id}`,
    );
    expect(other.status).toBe(404);
  });

  test('when a POST carries the token in a form-encoded body, then it reaches its owner with that organization', async () => {
    const mine = await createOrganization('Form Co');
    const theirs = await createOrganization('Other Form Co');
    const response = await fetch(`${gateway}/api/svc/addGroup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: mine.token, name: 'VIP' }).toString(),
    });
    expect(response.status).toBe(201);
    const groups = async (token: string) =>
      (await jsonBody(await fetch(`${gateway}/api/svc/getGroups?token=${token}`))).groups as {
        name: string;
      }[];
    expect((await groups(mine.token)).map((group) => group.name)).toEqual(['VIP']);
    expect(await groups(theirs.token)).toEqual([]);
  });

  test('when the token is wrong or missing, then the answer is 401 Invalid token', async () => {
    for (const url of [`${gateway}/api/svc/me?token=wrong`, `${gateway}/api/svc/getContacts`]) {
      const response = await fetch(url);
      expect(response.status).toBe(401);
      expect(await jsonBody(response)).toEqual({
        status: 'error',
        message: 'Invalid token',
        code: 'invalid_token',
      });
    }
    const post = await fetch(`${gateway}/api/svc/makeContact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'wrong', name: 'x', phone: '1' }),
    });
    expect(post.status).toBe(401);
  });

  test('when an operation does not exist, then the answer is a 404 error envelope', async () => {
    const { token } = await createOrganization('Typo Co');
    const response = await fetch(`${gateway}/api/svc/sendSmokeSignal?token=${token}`);
    expect(response.status).toBe(404);
    expect(ErrorResponseSchema.parse(await jsonBody(response)).code).toBe('not_found');
  });

  test('when a service is called directly on /internal/* without the secret, then it refuses', async () => {
    for (const service of ['messaging', 'contacts', 'campaigns', 'webhooks', 'inbound'] as const) {
      const refused = await fetch(`${system.urls[service]}/internal/info`);
      expect(refused.status).toBe(403);
      const allowed = await fetch(`${system.urls[service]}/internal/info`, {
        headers: { [INTERNAL_SECRET_HEADER]: internalSecret },
      });
      expect(await jsonBody(allowed)).toEqual({ status: 'success', service });
    }
  });

  test('when the provider calls the inbound webhook path, then the gateway passes it to inbound without a token', async () => {
    const { channel } = await createOrganization('Provider Co');
    const body = '{"object":"whatsapp_business_account","entry":[]}';
    const signature =
      'sha256=' + createHmac('sha256', channel.app_secret).update(body).digest('hex');
    const response = await fetch(channel.inbound_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    expect(response.status).toBe(200);
    const forged = await fetch(channel.inbound_url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': 'sha256=' + '0'.repeat(64),
      },
      body,
    });
    expect(forged.status).toBe(403);
  });

  test('when a service stops, then its routes answer 503 quickly while the others keep working', async () => {
    const { token } = await createOrganization('Outage Co');
    await system.stopService('contacts');
    try {
      const started = Date.now();
      const down = await fetch(`${gateway}/api/svc/getContacts?token=${token}`);
      expect(down.status).toBe(503);
      expect(ErrorResponseSchema.parse(await jsonBody(down)).code).toBe('dependency_unavailable');
      expect(Date.now() - started).toBeLessThan(5_000);

      const me = await fetch(`${gateway}/api/svc/me?token=${token}`);
      expect(me.status).toBe(200);
      // Another owner still serves its own operations.
      const webhooks = await fetch(`${gateway}/developer/webhooks?token=${token}`);
      expect(webhooks.status).toBe(200);
      expect(await jsonBody(webhooks)).toMatchObject({ status: 'success', webhooks: [] });
    } finally {
      await system.startService('contacts');
    }
    const back = await fetch(`${gateway}/api/svc/getContacts?token=${token}`);
    expect(back.status).toBe(200);
  });

  test('when the OpenAPI document is requested, then it describes the gateway operations', async () => {
    const response = await fetch(`${gateway}/api/svc/openapi.json`);
    const document = await jsonBody(response);
    expect(document.openapi).toBe('3.1.0');
    expect(document.paths['/api/svc/me']).toBeDefined();
    expect(document.paths['/admin/organizations']).toBeDefined();
  });

  test('when services log, then no token or secret appears in their output', () => {
    const all = output.join('\n');
    expect(all).not.toContain(adminToken);
    expect(all).not.toContain(internalSecret);
  });
});

describe("the admin's organizations and channels, from the gateway to messaging's store", () => {
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(gateway + path, {
      ...init,
      headers: {
        authorization: `Bearer ${adminToken}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
  const newOrganization = () => createOrganization('Channel Co');
  /** The channel messaging stored for the organization, read straight from its database. */
  async function storedChannel(company_id: number) {
    const connection = await mongoose.createConnection(MONGODB_URL).asPromise();
    try {
      return await connection
        .useDb(`${e2e.dbPrefix}messaging`)
        .collection('channels')
        .findOne({ company_id });
    } finally {
      await connection.close();
    }
  }
  const refusal = async (response: Response) => ({
    ...ErrorResponseSchema.parse(await response.json()),
    httpStatus: response.status,
  });

  test('when an organization is created, then its channel is provisioned and shown once', async () => {
    const { organization, channel } = await newOrganization();
    expect(channel.inbound_url).toMatch(
      new RegExp(`^${gateway}/webhook/svc/receive/[A-Za-z0-9_-]{43}$`),
    );
    const stored = await storedChannel(organization.company_id);
    expect(stored).toMatchObject({
      phone_number_id: channel.phone_number_id,
      app_secret_sealed: expect.stringMatching(/^v2\./),
      verify_token_sealed: expect.stringMatching(/^v2\./),
    });
    expect(JSON.stringify(stored)).not.toContain(channel.app_secret);
    expect(JSON.stringify(stored)).not.toContain(channel.verify_token);
  });

  test('when the admin points a channel at Meta, then it is stored, its token only sealed, and no secret is echoed', async () => {
    const { organization } = await newOrganization();
    const before = await storedChannel(organization.company_id);
    const response = await admin(`/admin/organizations/${organization.company_id}/channel`, {
      method: 'PUT',
      body: JSON.stringify({
        provider_base_url: 'https://graph.facebook.com',
        api_version: 'v24.0',
        phone_number_id: '106540352242922',
        access_token: 'EAAG-secret-token',
      }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain('EAAG-secret-token');
    const { channel } = UpdateChannelResponseSchema.parse(JSON.parse(text));
    expect(channel).toMatchObject({
      provider_base_url: 'https://graph.facebook.com',
      phone_number_id: '106540352242922',
    });
    const stored = await storedChannel(organization.company_id);
    expect(stored?.access_token_sealed).toMatch(/^v2\./);
    expect(stored?.access_token_sealed).not.toBe(before?.access_token_sealed);
    expect(JSON.stringify(stored)).not.toContain('EAAG-secret-token');
  });

  test("when a channel takes another organization's phone_number_id, then 409 names it and nothing changes", async () => {
    const first = await newOrganization();
    const second = await newOrganization();
    const response = await admin(`/admin/organizations/${second.organization.company_id}/channel`, {
      method: 'PUT',
      body: JSON.stringify({ phone_number_id: first.channel.phone_number_id }),
    });
    const answer = await refusal(response);
    expect(answer).toMatchObject({ httpStatus: 409, code: 'conflict' });
    expect(answer.message).toBe(
      `phone_number_id ${first.channel.phone_number_id} belongs to another organization's channel`,
    );
    const stored = await storedChannel(second.organization.company_id);
    expect(stored?.phone_number_id).toBe(second.channel.phone_number_id);
  });
});
