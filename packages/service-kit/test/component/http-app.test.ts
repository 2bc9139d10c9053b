import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import {
  AppError,
  createHttpApp,
  createLogger,
  operationInput,
  orgContext,
  requireInternalSecret,
  serveOperation,
} from '../../src';
import { jsonBody } from '../../../../test/support/test-infra';

const secret = 'internal-secret-for-tests';
let server: Server;
let base: string;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const app = createHttpApp({
    logger: createLogger('test', 'info', sink),
    bodyLimit: '1kb',
    readinessChecks: [{ name: 'database', check: () => false }],
    routes: (router) => {
      router.post('/echo', (req, res) => {
        res.json({ body: req.body, query: req.query });
      });
      router.get('/echo', (req, res) => {
        res.json({ query: req.query });
      });
      serveOperation(router, 'getContacts', async (req, res) => {
        res.json({ input: operationInput(req) });
      });
      serveOperation(router, 'updateContact', async (req, res) => {
        res.json({ method: req.method });
      });
      router.get('/conflict', () => {
        throw new AppError('conflict', 'Already there', { details: { id: 7 } });
      });
      router.get('/boom', async () => {
        throw new Error('database password is hunter2');
      });
      router.get('/internal/thing', requireInternalSecret(secret), (req, res) => {
        res.json({ company_id: orgContext(req).company_id });
      });
    },
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const postJson = (path: string, body: string) =>
  fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('createHttpApp', () => {
  test('when the JSON body is malformed, then the answer is 400 with the error envelope', async () => {
    const response = await postJson('/echo', '{"name": ');
    expect(response.status).toBe(400);
    expect(await jsonBody(response)).toEqual({
      status: 'error',
      message: 'Request body is not valid JSON',
      code: 'malformed_json',
    });
  });

  test('when the body is over the limit, then the answer is 413', async () => {
    const response = await postJson('/echo', JSON.stringify({ text: 'x'.repeat(2048) }));
    expect(response.status).toBe(413);
    expect((await jsonBody(response)).code).toBe('payload_too_large');
  });

  test('when form bodies and query strings use brackets, then they parse into nested objects', async () => {
    const form = await fetch(base + '/echo?filter[group]=7', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Ana&custom[city]=Rome&data[order][id]=7',
    });
    expect(await jsonBody(form)).toEqual({
      body: { name: 'Ana', custom: { city: 'Rome' }, data: { order: { id: '7' } } },
      query: { filter: { group: '7' } },
    });
  });

  test('when a route throws an AppError, then its status, code and details are answered', async () => {
    const response = await fetch(base + '/conflict');
    expect(response.status).toBe(409);
    expect(await jsonBody(response)).toEqual({
      status: 'error',
      message: 'Already there',
      code: 'conflict',
      id: 7,
    });
  });

  test('when a route fails unexpectedly, then the client gets 500 without internals and it is logged once', async () => {
    const response = await fetch(base + '/boom');
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      status: 'error',
      message: 'Internal error',
      code: 'internal_error',
    });
    expect(text).not.toContain('hunter2');
    expect(logLines.filter((line) => line.includes('unhandled error'))).toHaveLength(1);
  });

  test('when no route matches, then the answer is a 404 envelope', async () => {
    const response = await fetch(base + '/nowhere');
    expect(response.status).toBe(404);
    expect((await jsonBody(response)).code).toBe('not_found');
  });

  test('when a request id is sent, then it is echoed; otherwise one is generated', async () => {
    const given = await fetch(base + '/echo', { headers: { 'x-request-id': 'req-123' } });
    expect(given.headers.get('x-request-id')).toBe('req-123');
    const generated = await fetch(base + '/echo');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('when /livez and /readyz are asked, then liveness passes and readiness reports the failing check', async () => {
    expect((await fetch(base + '/livez')).status).toBe(200);
    const ready = await fetch(base + '/readyz');
    expect(ready.status).toBe(503);
    expect(await jsonBody(ready)).toEqual({ status: 'unavailable', checks: { database: false } });
  });

  test('when an internal route is called without the secret, then it is refused; with it, org headers are read', async () => {
    expect((await fetch(base + '/internal/thing')).status).toBe(403);
    const wrong = await fetch(base + '/internal/thing', {
      headers: { 'x-internal-secret': 'nope' },
    });
    expect(wrong.status).toBe(403);
    const allowed = await fetch(base + '/internal/thing', {
      headers: {
        'x-internal-secret': secret,
        'x-org-id': '42',
        'x-org-plan': 'free',
        'x-org-plan-started-at': new Date().toISOString(),
      },
    });
    expect(await jsonBody(allowed)).toEqual({ company_id: 42 });
  });

  test('when an operation is called, then it answers on each method its definitions list, and 405 naming them on any other', async () => {
    for (const method of ['POST', 'PUT']) {
      const response = await fetch(`${base}/api/svc/updateContact`, { method });
      expect(await jsonBody(response)).toEqual({ method });
    }
    const wrong = await fetch(`${base}/api/svc/updateContact`, { method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, PUT');
    expect((await jsonBody(wrong)).message).toBe(
      'updateContact is called with POST or PUT, not GET',
    );
  });

  test('when an operation gets an empty query value, then its input holds it for the schema to judge', async () => {
    const response = await fetch(`${base}/api/svc/getContacts?page=&type=api`);
    expect(await jsonBody(response)).toEqual({ input: { page: '', type: 'api' } });
  });

  test('when a body holds NUL, a lone surrogate or deep nesting, or is an array, then 422 names it', async () => {
    const cases: [string, string][] = [
      [
        '{"custom":{"ci\\u0000ty":"Rome"}}',
        'body key custom.ci\u0000ty: must not contain NUL characters (U+0000)',
      ],
      [
        '{"names":["ok","\\udc00"]}',
        'names.1: must not contain unpaired surrogates (not valid Unicode)',
      ],
      [
        '{"a":' + '{"b":'.repeat(40) + '1' + '}'.repeat(41),
        'body nests deeper than 32 levels at a.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b',
      ],
      ['[1,2]', 'body: must be a JSON object, not an array'],
    ];
    for (const [body, message] of cases) {
      const response = await postJson('/echo', body);
      expect(response.status).toBe(422);
      expect(await jsonBody(response)).toEqual({
        status: 'error',
        message,
        code: 'validation_failed',
      });
    }
    const deepEnough = '{"a":' + '['.repeat(30) + ']'.repeat(30) + '}';
    expect((await postJson('/echo', deepEnough)).status).toBe(200);
  });
});
