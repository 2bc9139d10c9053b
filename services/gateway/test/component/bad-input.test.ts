import http from 'node:http';
import { ErrorResponseSchema } from '@switchboard/contracts';
import { startGatewayStack, type GatewayStack } from '../support/gateway-harness';
import {
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  uniquePrefix,
} from '../../../../test/support/test-infra';

const prefix = uniquePrefix('gateway_bad_input');
const NOWHERE = 'http://127.0.0.1:1';
let stack: GatewayStack;
let broker: Awaited<ReturnType<typeof isolatedAmqpUrl>>;
let token: string;

beforeAll(async () => {
  broker = await isolatedAmqpUrl('gateway_bad_input');
  stack = await startGatewayStack({
    dbPrefix: prefix,
    amqpUrl: broker.url,
    // No owner answers (messaging is a stub without these routes): whatever the edge refuses
    // must never need the owner to answer.
    gatewayEnv: {
      CONTACTS_URL: NOWHERE,
      CAMPAIGNS_URL: NOWHERE,
      WEBHOOKS_URL: NOWHERE,
      INBOUND_URL: NOWHERE,
      PROXY_TIMEOUT_MS: '1000',
    },
  });
  ({ token } = await stack.createOrganization('premium'));
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await dropDatabasesWithPrefix(prefix);
  await broker.drop();
});

const call = (method: string, path: string, body?: string) =>
  fetch(stack.gateway.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });

async function refusal(response: Response) {
  return { ...ErrorResponseSchema.parse(await response.json()), httpStatus: response.status };
}

/** fetch refuses TRACE, so methods are sent with node's own client. */
function rawCall(method: string, path: string) {
  return new Promise<{ status: number; allow?: string; body: string }>((resolve, reject) => {
    const request = http.request(
      stack.gateway.url + path,
      { method, headers: { authorization: `Bearer ${token}` } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, allow: response.headers.allow, body }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('the edge refuses input that cannot be stored', () => {
  test.each([
    ['POST', '/api/svc/makeContact', { name: 'Ana\u0000', phone: '393331234567' }, 'name'],
    ['POST', '/api/svc/addGroup', { name: 'VIP\u0000' }, 'name'],
    [
      'POST',
      '/api/svc/sendMessageToPhoneNumber',
      { phone: '393331234567', message: 'hi\u0000' },
      'message',
    ],
    ['POST', '/api/svc/createCampaign', { name: 'x', custom: { 'a\u0000': 1 } }, 'custom.a'],
    ['POST', '/developer/webhooks', { name: 'n', url: 'https://example.com/\u0000' }, 'url'],
  ])(
    'when %s %s carries a NUL character, then 422 names the field',
    async (method, path, body, field) => {
      const answer = await refusal(await call(method, path, JSON.stringify(body)));
      expect(answer).toMatchObject({ httpStatus: 422, code: 'validation_failed' });
      expect(answer.message).toContain(field);
      expect(answer.message).toContain('NUL');
    },
  );

  test('when a query value carries a NUL character, then 422 names the parameter', async () => {
    const answer = await refusal(await call('GET', '/api/svc/getContacts?search=a%00b'));
    expect(answer).toMatchObject({ httpStatus: 422, code: 'validation_failed' });
    expect(answer.message).toBe('search: must not contain NUL characters (U+0000)');
  });

  test('when text holds an unpaired surrogate, then 422 says it is not valid Unicode', async () => {
    // JSON.stringify would escape the lone surrogate the same way a client's encoder does.
    const body = '{"phone":"393331234567","message":"broken \\ud83d pair"}';
    const answer = await refusal(await call('POST', '/api/svc/sendMessageToPhoneNumber', body));
    expect(answer).toMatchObject({ httpStatus: 422, code: 'validation_failed' });
    expect(answer.message).toBe(
      'message: must not contain unpaired surrogates (not valid Unicode)',
    );
    const paired = await stack.createOrganization('free', 'Whole \ud83d\ude00 pair');
    expect(paired.organization.name).toBe('Whole 😀 pair');
  });

  test('when a body nests 5,000 levels deep, then 422 and the gateway keeps answering', async () => {
    const deep =
      '{"phone":"393331234567","message":"hi","x":' + '['.repeat(5000) + ']'.repeat(5000) + '}';
    const answer = await refusal(await call('POST', '/api/svc/sendMessageToPhoneNumber', deep));
    expect(answer).toMatchObject({ httpStatus: 422, code: 'validation_failed' });
    expect(answer.message).toContain('nests deeper than 32 levels');
    expect((await call('GET', '/api/svc/me')).status).toBe(200);
  });

  test('when the body is a JSON array, then 422 says it must be an object', async () => {
    const answer = await refusal(await call('POST', '/api/svc/sendMessageToPhoneNumber', '[]'));
    expect(answer).toMatchObject({
      httpStatus: 422,
      message: 'body: must be a JSON object, not an array',
    });
  });
});

describe('methods a path does not take', () => {
  test.each([
    ['TRACE', '/api/svc/me', 'GET, HEAD, OPTIONS'],
    ['TRACE', '/api/svc/sendMessageToPhoneNumber', 'POST, OPTIONS'],
    ['PATCH', '/api/svc/updatecontact', 'POST, PUT, OPTIONS'],
    ['TRACE', '/developer/webhooks', 'POST, GET, HEAD, OPTIONS'],
    ['GET', '/developer/webhooks/wh_1/toggle', 'POST, OPTIONS'],
    ['TRACE', '/admin/organizations', 'POST, OPTIONS'],
  ])('when %s %s, then 405 with Allow: %s', async (method, path, allow) => {
    const response = await rawCall(method, path);
    expect(response.status).toBe(405);
    expect(response.allow).toBe(allow);
    expect(ErrorResponseSchema.parse(JSON.parse(response.body)).code).toBe('method_not_allowed');
  });

  test('when OPTIONS asks, then 204 lists the methods in Allow', async () => {
    const response = await call('OPTIONS', '/api/svc/getContacts');
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});
