// What a proxy hop costs in bare Node, as the floor for the gateway's: a node:http server that
// reads a provider webhook's body whole and sends it on one keep-alive agent to an upstream
// server, passing the short answer back (no breaker, metrics, request ids or logging), and the
// same server answering by itself (`server alone`: the gateway's client-facing half). Each part
// is its own process; the proxy's CPU per request is read with process.cpuUsage() over the run.
//
//   node services/gateway/bench/bare-node-hop.bench.js [REQUESTS]
//
// Env: REQUESTS (default 3,000), RATES (requests a second, comma-separated; default
// `300,750`; 0 runs closed-loop at CONCURRENCY), CONCURRENCY (16), BASE_PORT (18900).
// Compare with proxy-hop.bench.js (`ONLY='status webhook'`) at the same rate.
const { fork } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');
const { statusWebhook } = require(
  path.join(__dirname, '..', '..', '..', 'scripts', 'status-webhook'),
);

const ANSWER = Buffer.from(JSON.stringify({ status: 'success' }));

/** The upstream (inbound's stand-in): reads the body, answers a short JSON. */
function upstream(port) {
  http
    .createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = 200;
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.setHeader('content-length', ANSWER.length);
        res.end(ANSWER);
      });
    })
    .listen(port, () => process.send('ready'));
}

/** The proxy (the gateway's stand-in), or with `alone` the server answering by itself. */
function proxy(port, upstreamPort, alone) {
  const agent = new http.Agent({ keepAlive: true });
  http
    .createServer((req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (alone) {
          res.statusCode = 200;
          res.setHeader('content-type', 'application/json; charset=utf-8');
          res.setHeader('content-length', ANSWER.length);
          res.end(ANSWER);
          return;
        }
        const request = http.request({
          hostname: '127.0.0.1',
          port: upstreamPort,
          method: 'POST',
          path: req.url,
          agent,
          headers: {
            'content-type': req.headers['content-type'],
            'content-length': body.length,
            'x-hub-signature-256': req.headers['x-hub-signature-256'],
          },
        });
        request.once('response', (answer) => {
          const parts = [];
          answer.on('data', (chunk) => parts.push(chunk));
          answer.on('end', () => {
            res.statusCode = answer.statusCode;
            res.setHeader('content-type', answer.headers['content-type']);
            res.setHeader('content-length', answer.headers['content-length']);
            res.end(Buffer.concat(parts));
          });
        });
        request.end(body);
      });
    })
    .listen(port, () => process.send('ready'));
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send((user + system) / 1000);
  });
}

/** A delivered status as the simulator posts it. */
const WEBHOOK = Buffer.from(JSON.stringify(statusWebhook({ billing: true })));

async function main() {
  const requests = Number(process.argv[2] ?? process.env.REQUESTS ?? 3_000);
  const rates = (process.env.RATES ?? '300,750').split(',').map(Number);
  const concurrency = Number(process.env.CONCURRENCY ?? 16);
  const basePort = Number(process.env.BASE_PORT ?? 18900);
  const started = (args) =>
    new Promise((resolve) => {
      const child = fork(__filename, args);
      child.once('message', () => resolve(child));
    });
  const up = await started(['upstream', String(basePort + 1)]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const post = (port) =>
    new Promise((resolve, reject) => {
      const request = http.request(
        {
          port,
          method: 'POST',
          path: '/webhook/svc/receive/abcdefghijklmnop',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': WEBHOOK.length,
            'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
          },
        },
        (answer) => answer.resume().on('end', resolve),
      );
      request.on('error', reject);
      request.end(WEBHOOK);
    });
  const run = async (port, count, rate) => {
    if (!rate) {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next++ < count) await post(port);
        }),
      );
      return;
    }
    const calls = [];
    const start = Date.now();
    for (let i = 0; i < count; i += 1) {
      const wait = start + (i * 1000) / rate - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      calls.push(post(port));
    }
    await Promise.all(calls);
  };
  const rows = [];
  for (const alone of [false, true]) {
    const port = basePort + (alone ? 3 : 2);
    const hop = await started(['proxy', String(port), String(basePort + 1), alone ? '1' : '']);
    const cpu = () => new Promise((resolve) => hop.once('message', resolve).send('cpu'));
    await run(port, 1_000, 0); // warm-up
    for (const rate of rates) {
      const before = await cpu();
      const begun = Date.now();
      await run(port, requests, rate);
      rows.push({
        run: alone ? 'server alone' : 'proxy hop',
        'rate asked /s': rate || 'closed loop',
        'requests/s': Math.round(requests / ((Date.now() - begun) / 1000)),
        'cpu ms per request': Number((((await cpu()) - before) / requests).toFixed(3)),
      });
    }
    hop.kill();
  }
  up.kill();
  console.table(rows);
  process.exit(0);
}

const [role, ...args] = process.argv.slice(2);
if (role === 'upstream') upstream(Number(args[0]));
else if (role === 'proxy') proxy(Number(args[0]), Number(args[1]), args[2] === '1');
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
