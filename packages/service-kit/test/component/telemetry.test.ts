import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
// A separate process, because instrumentation must load before http does (as in main.ts).
const TELEMETRY = path.resolve(__dirname, '../../dist/telemetry.js');
const script = `
  const { startTelemetry, stopTelemetry } = require(${JSON.stringify(TELEMETRY)});
  const started = startTelemetry('kit-test');
  const http = require('node:http');
  const server = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', () => {
    http.get('http://127.0.0.1:' + server.address().port + '/traced', (res) => {
      res.resume();
      res.on('end', async () => {
        server.close();
        await stopTelemetry();
        console.log(JSON.stringify({ started }));
      });
    });
  });
`;

let collector: Server;
let endpoint: string;
const received: { path: string; body: Buffer }[] = [];

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  collector.listen(0, '127.0.0.1');
  await new Promise((resolve) => collector.once('listening', resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => collector.close(resolve)));

describe('startTelemetry', () => {
  test('when OTEL_EXPORTER_OTLP_ENDPOINT is set, then spans of HTTP calls reach the collector', async () => {
    const { stdout } = await run(process.execPath, ['-e', script], {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    expect(JSON.parse(stdout.trim())).toEqual({ started: true });
    const traces = received.filter((request) => request.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(Buffer.concat(traces.map((t) => t.body)).toString('latin1')).toContain('kit-test');
  });

  test('when OTEL_EXPORTER_OTLP_ENDPOINT is not set, then nothing is started or exported', async () => {
    const before = received.length;
    const env = { ...process.env };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    const { stdout } = await run(process.execPath, ['-e', script], { env });
    expect(JSON.parse(stdout.trim())).toEqual({ started: false });
    expect(received.length).toBe(before);
  });
});
