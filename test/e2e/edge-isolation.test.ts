import { request } from 'node:http';
import { RECEIVE_BATCH_PATH, SendMessageResponseSchema } from '@switchboard/contracts';
import { startE2eSystem, type E2eSystem } from '../support/e2e-system';

jest.setTimeout(180_000);

let e2e: E2eSystem;

beforeAll(async () => {
  // The provider's slowness must show within a test's time: messaging gives up on a call after 1 s.
  e2e = await startE2eSystem('e2eedge', { PROVIDER_TIMEOUT_MS: '1000' });
});

afterAll(async () => {
  await e2e?.stop();
});

/** A request with its path sent byte for byte (fetch would resolve `..` and `\` first). */
function rawRequest(
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(e2e.gateway);
  const method = body === undefined ? 'GET' : 'POST';
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString() }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function fault(rule: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${e2e.simulator}/sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
  expect(response.status).toBe(201);
}

const clearFaults = () => fetch(`${e2e.simulator}/sim/faults`, { method: 'DELETE' });

describe('one organization cannot stop another', () => {
  afterEach(async () => {
    await clearFaults();
  });

  test.each([
    ['answers 500', { http_status: 500 }],
    ['answers 503', { http_status: 503 }],
    ['does not answer in time', { latency_ms: 3_000 }],
    ['drops every connection (a dead channel)', { drop_connection: true }],
  ])(
    "when organization A's provider %s on every send, then A's sends fail and B's sends keep answering 200 as before",
    async (_label, effect) => {
      const a = await e2e.createOrganization('Broken Provider Co', 'standard');
      const b = await e2e.createOrganization('Healthy Co', 'standard');
      const sendAs = (token: string, i: number) =>
        e2e.api(token).post('sendMessageToPhoneNumber', {
          phone: `3934700${String(i).padStart(5, '0')}`,
          message: `hello ${i}`,
        });
      const before = await sendAs(b.token, 1);
      expect(before.status).toBe(200);

      await fault({ phone_number_id: a.channel.phone_number_id, ...effect });
      // More failures than any breaker's volume threshold, while B keeps sending beside them.
      const failing = Promise.all(Array.from({ length: 8 }, (_, i) => sendAs(a.token, 100 + i)));
      const beside = [];
      for (let i = 0; i < 4; i++) beside.push(await sendAs(b.token, 200 + i));
      const failed = await failing;
      const after = [];
      for (let i = 0; i < 6; i++) after.push(await sendAs(b.token, 300 + i));

      for (const answer of failed) {
        expect(answer.status).not.toBe(200);
        expect(answer.body.status).toBe('error');
      }
      for (const answer of [...beside, ...after]) {
        expect({ status: answer.status, body: answer.body.status }).toEqual({
          status: 200,
          body: 'success',
        });
        expect(Object.keys(SendMessageResponseSchema.parse(answer.body)).sort()).toEqual(
          Object.keys(before.body).sort(),
        );
      }
    },
  );
});

describe('no path from the public edge to internal routes', () => {
  let token: string;
  beforeAll(async () => {
    token = (await e2e.createOrganization('Path Prober')).token;
  });

  const traversals = [
    '/webhook/svc/receive/..\\..\\..\\internal\\info',
    '/webhook/svc/receive/..\\..\\..\\metrics',
    '/webhook/svc/receive/..\\..\\..\\internal\\info?x=1',
    '/webhook/svc/receive/../../../internal/info',
    '/webhook/svc/receive/%2e%2e/%2e%2e/%2e%2e/internal/info',
    '/webhook/svc/receive/.%2E/.%2E/.%2E/metrics',
    '/webhook/svc/receive/..%2f..%2f..%2finternal%2finfo',
    '/webhook/svc/receive/..%5c..%5c..%5cinternal%5cinfo',
    '/webhook/svc/receive/%252e%252e%252f%252e%252e%252finternal%252finfo',
    '/webhook/svc/receive/./../../../internal/info',
    '/WEBHOOK/svc/receive/..\\..\\..\\internal\\info',
    '/developer/webhooks/..\\..\\internal\\info',
    '/developer/webhooks/..\\..\\metrics',
    '/developer/webhooks/../../internal/info',
    '/developer/webhooks/x/..\\..\\..\\internal\\info',
    '/developer/webhooks/%2e%2e/%2e%2e/internal/info',
    '/developer/webhooks/..%2f..%2finternal%2finfo',
    '/developer/webhooks/..%5C..%5Cinternal%5Cinfo',
    '/Developer/Webhooks/..\\..\\internal\\info',
    '/developer/webhooks\\..\\..\\internal\\info',
    '/api/svc/..\\..\\internal\\info',
    '/api/svc/%2e%2e/%2e%2e/internal/info',
    '/api/svc/..%2f..%2finternal%2finfo',
    '/api/svc/getContacts/..\\..\\..\\internal\\info',
    '/admin/..\\internal\\organizations\\1',
  ];

  test.each(traversals)(
    'when %s is asked with and without a token, then it is refused with 404 and no internal route answers',
    async (path) => {
      const withAndWithout: Record<string, string>[] = [{}, { authorization: `Bearer ${token}` }];
      for (const headers of withAndWithout) {
        const answer = await rawRequest(path, headers);
        expect({ path, status: answer.status }).toEqual({ path, status: 404 });
        expect(JSON.parse(answer.text)).toMatchObject({ status: 'error', code: 'not_found' });
        expect(answer.text).not.toMatch(/"service"|# HELP|# TYPE/);
      }
    },
  );

  // Inbound's batch of webhooks stores whatever it is given as verified by the gateway's secret.
  const batchPaths = [
    RECEIVE_BATCH_PATH,
    `/webhook/svc/receive/..\\..\\..${RECEIVE_BATCH_PATH.replaceAll('/', '\\')}`,
    `/webhook/svc/receive/../../..${RECEIVE_BATCH_PATH}`,
    `/webhook/svc/receive/%2e%2e/%2e%2e/%2e%2e${RECEIVE_BATCH_PATH}`,
    `/webhook/svc/receive/..%2f..%2f..${RECEIVE_BATCH_PATH.replaceAll('/', '%2f')}`,
    `/api/svc/..\\..${RECEIVE_BATCH_PATH.replaceAll('/', '\\')}`,
  ];

  test.each(batchPaths)(
    "when a batch of webhooks is posted to %s, then it is refused with 404 and inbound's batch route never answers",
    async (path) => {
      const batch = JSON.stringify({
        webhooks: [{ token: 'a'.repeat(43), body: Buffer.from('{}').toString('base64') }],
      });
      const answer = await rawRequest(
        path,
        { 'content-type': 'application/json', 'content-length': String(batch.length) },
        batch,
      );
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(answer.text)).toMatchObject({ status: 'error', code: 'not_found' });
      expect(answer.text).not.toContain('results');
    },
  );

  test('when the public paths are asked plainly, then they still reach their owners', async () => {
    const hooks = await rawRequest('/developer/webhooks', { authorization: `Bearer ${token}` });
    expect(hooks.status).toBe(200);
    expect(JSON.parse(hooks.text)).toMatchObject({ status: 'success' });
    const me = await rawRequest(`/api/svc/me?token=${token}`);
    expect(me.status).toBe(200);
  });

  test("when the gateway's public port is asked for /metrics, then it does not serve them", async () => {
    const answer = await rawRequest('/metrics');
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('# HELP');
  });
});
