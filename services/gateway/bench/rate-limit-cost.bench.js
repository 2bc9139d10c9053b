// What the gateway's rate limits cost per request, beside a baseline from
// the same run: the gateway's CPU time per `sendMessageToPhoneNumber` forwarded to messaging.
//
//   npx tsc -b && node services/gateway/bench/rate-limit-cost.bench.js [SENDS]
//
// Env: SENDS (default 500), CONCURRENCY (default 16), CALLS (limiter calls, default 1,000,000),
// KEYS (distinct tokens and organizations the limiter sees, default 10,000), BASE_PORT (18180).
// The baseline reads the gateway process's process_cpu_seconds_total from its metrics listener
// before and after the sends; the limiter is timed in this process on the compiled dist/ module,
// with the same calls a request makes (failed-attempt check, token and organization buckets,
// the RateLimit fields set on a real ServerResponse).
const http = require('node:http');
const path = require('node:path');
const root = path.join(__dirname, '..', '..', '..');
const { createCaller, load, withBenchSystem } = require(
  path.join(root, 'scripts', 'bench-support'),
);
const { createRateLimits } = require(
  path.join(__dirname, '..', 'dist', 'entry-points', 'http', 'rate-limits.js'),
);

const SENDS = Number(process.argv[2] ?? process.env.SENDS ?? 500);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const CALLS = Number(process.env.CALLS ?? 1_000_000);
const KEYS = Number(process.env.KEYS ?? 10_000);
const BASE_PORT = Number(process.env.BASE_PORT ?? 18180);
const METRICS_PORT = BASE_PORT + 50;
const caller = createCaller(CONCURRENCY);

async function gatewayCpuSeconds() {
  const { text } = await caller.get(`http://127.0.0.1:${METRICS_PORT}/metrics`);
  const line = text.split('\n').find((row) => row.startsWith('process_cpu_seconds_total'));
  return Number(line.split(' ')[1]);
}

async function baselineMsPerSend() {
  const env = {
    SEND_RATE_PER_SECOND: '100000',
    SIM_THROUGHPUT_PER_SECOND: '0',
    SIM_STATUS_DELAYS_MS: '',
    SIM_PAIR_RATE_LIMIT: 'false',
    METRICS_PORT: String(METRICS_PORT),
    // The load stays far below any limit: what is measured is the work, not refusals.
    API_RATE_SCALE: '1000',
  };
  return withBenchSystem(
    'gwlimit',
    { basePort: BASE_PORT, env },
    async ({ system, adminToken }) => {
      const gateway = system.urls.gateway;
      const created = await caller.post(
        `${gateway}/admin/organizations`,
        { name: 'Bench Co', plan: 'premium' },
        { authorization: `Bearer ${adminToken}` },
      );
      if (created.status !== 201) throw new Error(`create organization: ${created.text}`);
      const { token } = JSON.parse(created.text);
      const send = (i) =>
        caller.post(`${gateway}/api/svc/sendMessageToPhoneNumber`, {
          token,
          phone: String(393_400_000_000 + (i % 100)),
          message: `bench ${i}`,
        });
      await load('warm-up (not counted)', 200, CONCURRENCY, send);
      const before = await gatewayCpuSeconds();
      await load('sends through the gateway', SENDS, CONCURRENCY, send);
      const after = await gatewayCpuSeconds();
      return ((after - before) * 1000) / SENDS;
    },
  );
}

function limiterMicrosPerRequest() {
  const limits = createRateLimits({
    replicas: 2,
    apiRateScale: 1000,
    admin: { perSecond: 5, burst: 50 },
    failedAuth: { perSecond: 0.5, burst: 30 },
  });
  const organizations = Array.from({ length: KEYS }, (_, i) => ({
    company_id: i + 1,
    plan: ['free', 'standard', 'premium'][i % 3],
  }));
  const tokens = organizations.map((_, i) => `${i}`.padStart(64, 'f'));
  const req = { ip: '10.0.0.1' };
  const res = new http.ServerResponse(new http.IncomingMessage(null));
  const once = (i) => {
    limits.refuseAfterFailures(req, res);
    limits.api(tokens[i % KEYS], organizations[i % KEYS], res);
  };
  for (let i = 0; i < 100_000; i++) once(i);
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) once(i);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / CALLS;
}

async function main() {
  const limiterUs = limiterMicrosPerRequest();
  const baselineMs = await baselineMsPerSend();
  console.log(`\ngateway CPU per forwarded send (baseline): ${baselineMs.toFixed(3)} ms`);
  console.log(
    `rate limits per request: ${limiterUs.toFixed(2)} µs CPU (${CALLS} calls, ${KEYS} tokens and organizations)`,
  );
  console.log(`limiter / send path: ${((limiterUs / 1000 / baselineMs) * 100).toFixed(3)} %`);
}

main()
  .finally(() => caller.destroy())
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
