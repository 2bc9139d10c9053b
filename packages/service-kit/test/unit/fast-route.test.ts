import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import {
  AppError,
  answerBeforeExpress,
  byteSize,
  createLogger,
  createServiceMetrics,
  readStatedBody,
  statedBodyLength,
} from '../../src';

const lines: Record<string, unknown>[] = [];
const logger = createLogger(
  'fast-route-test',
  'info',
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  }),
);
const metrics = createServiceMetrics('fast-route-test', { defaultMetrics: false });
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    answerBeforeExpress(
      { logger, metrics },
      req,
      res,
      { route: '/webhook/svc/receive/:token', path },
      async () => {
        const length = statedBodyLength(req);
        if (length === undefined)
          throw new AppError('validation_failed', 'a stated length, please');
        const body = await readStatedBody(req, length);
        if (body.toString() === 'boom') throw new Error('not for the client');
        res.setHeader('content-type', 'text/plain');
        res.end(body);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const post = (body: string | ReadableStream, headers: Record<string, string> = {}) =>
  fetch(`${base}/webhook/svc/receive/s3cr3t-value`, {
    method: 'POST',
    headers,
    body,
    ...(typeof body === 'string' ? {} : { duplex: 'half' }),
  } as RequestInit);

describe('answerBeforeExpress', () => {
  test('when a request is answered, then it carries its request id, is logged without the secret in its path, and is counted under the route', async () => {
    const response = await post('hello', { 'x-request-id': 'caller-chosen-1' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hello');
    expect(response.headers.get('x-request-id')).toBe('caller-chosen-1');
    await new Promise((resolve) => setImmediate(resolve));
    const line = lines.find((entry) => entry.requestId === 'caller-chosen-1');
    expect(line).toMatchObject({ msg: 'request', method: 'POST', status: 200 });
    expect(JSON.stringify(lines)).not.toContain('s3cr3t-value');
    const { body } = await metrics.scrape();
    expect(body).toMatch(/route="\/webhook\/svc\/receive\/:token"/);
  });

  test('when the request id is not one a log can carry, then a new one is given', async () => {
    const response = await post('x', { 'x-request-id': 'no spaces or {braces}' });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('when the handler refuses, then the answer is the error envelope with its status', async () => {
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('chunk'));
        controller.close();
      },
    });
    const response = await post(chunked);
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      status: 'error',
      message: 'a stated length, please',
      code: 'validation_failed',
    });
  });

  test('when the handler fails unexpectedly, then 500 with the envelope, and the cause only in the log', async () => {
    const response = await post('boom');
    expect(response.status).toBe(500);
    const answer = await response.text();
    expect(JSON.parse(answer)).toMatchObject({ status: 'error', code: 'internal_error' });
    expect(answer).not.toContain('not for the client');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.some((entry) => entry.msg === 'unhandled error')).toBe(true);
  });
});

describe('byteSize', () => {
  test('when a limit is written as body parsers read it, then it is its bytes (units of 1,024)', () => {
    expect(byteSize('3mb')).toBe(3 * 1024 * 1024);
    expect(byteSize('100KB')).toBe(100 * 1024);
    expect(byteSize('1.5kb')).toBe(1536);
    expect(byteSize('512')).toBe(512);
    expect(byteSize('2 gb')).toBe(2 * 1024 ** 3);
  });

  test('when it is not a size, then undefined (the fast path then takes nothing)', () => {
    expect(byteSize('lots')).toBeUndefined();
    expect(byteSize('-1mb')).toBeUndefined();
    expect(byteSize('')).toBeUndefined();
  });
});
