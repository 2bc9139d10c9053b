// What the gateway's proxy hop costs: the gateway's CPU per proxied request, for a
// cheap read (`getContacts`, one contact a page), for sends, and for the provider's signed status
// webhooks (three for each message sent, passed through to inbound), beside the baseline of the
// same run: the owning service called directly (with the internal secret and the organization
// headers, as the gateway would call it; inbound's webhook as the provider would), so that the
// difference is the hop.
//
//   npx tsc -b && node services/gateway/bench/proxy-hop.bench.js [REQUESTS]
//
// Env: REQUESTS (per measured run, default 2,000), CONCURRENCY (default 16), BASE_PORT (18280),
// IDLE_SECONDS (10: how long the processes' idle CPU is measured before the runs), ONLY
// (`getContacts`, `send` or `status webhook`: that pair of runs alone, e.g. to profile it), CPU_PROF_DIR
// (every service runs with --cpu-prof, its profile written there on exit; summarize with
// `node scripts/cpu-profile-summary.js`).
// CPU is read from /proc/<pid>/stat (user + system) of the gateway and the owner over each
// measured run only; the load itself runs in this process.
const { createHmac } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const root = path.join(__dirname, '..', '..', '..');
const { statusWebhook } = require(path.join(root, 'scripts', 'status-webhook'));
const { createCaller, load, withBenchSystem } = require(
  path.join(root, 'scripts', 'bench-support'),
);

const REQUESTS = Number(process.argv[2] ?? process.env.REQUESTS ?? 2_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const BASE_PORT = Number(process.env.BASE_PORT ?? 18280);
const CLOCK_TICKS = 100; // USER_HZ on Linux
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 10);
const CPU_PROF_DIR = process.env.CPU_PROF_DIR;
const ONLY = process.env.ONLY;
const caller = createCaller(CONCURRENCY);

function cpuMs(pid) {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** CPU each named process spends a second with no load (timers, pools, lease renewals). */
async function idleMsPerSecond(pids, seconds = IDLE_SECONDS) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, (cpuMs(pid) - before[name]) / seconds]),
  );
}

/**
 * Runs the load and returns it with the CPU each named process spent per request meanwhile, and
 * the gateway's less what it spends idle over as long (`net`): on a loaded machine a run takes
 * longer, and the idle work would otherwise count against each request.
 */
async function measured(label, pids, call, idle) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const row = await load(label, REQUESTS, CONCURRENCY, call);
  for (const [name, pid] of Object.entries(pids)) {
    row[`${name} ms/req`] = Number(((cpuMs(pid) - before[name]) / REQUESTS).toFixed(3));
  }
  const idleMs = idle.gateway * row.seconds;
  row['gateway net ms/req'] = Number(
    ((row['gateway ms/req'] * REQUESTS - idleMs) / REQUESTS).toFixed(3),
  );
  return row;
}

async function main() {
  const env = {
    SEND_RATE_PER_SECOND: '100000',
    SIM_THROUGHPUT_PER_SECOND: '0',
    SIM_STATUS_DELAYS_MS: '',
    SIM_PAIR_RATE_LIMIT: 'false',
    // The load stays far below any limit: what is measured is the work, not refusals.
    API_RATE_SCALE: '1000',
    ...(CPU_PROF_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF_DIR}` } : {}),
  };
  const rows = await withBenchSystem(
    'gwhop',
    { basePort: BASE_PORT, env },
    async ({ system, adminToken, internalSecret }) => {
      const gateway = system.urls.gateway;
      const created = await caller.post(
        `${gateway}/admin/organizations`,
        { name: 'Bench Co', plan: 'premium' },
        { authorization: `Bearer ${adminToken}` },
      );
      if (created.status !== 201) throw new Error(`create organization: ${created.text}`);
      const { token, organization: org, channel } = JSON.parse(created.text);
      const ownerHeaders = {
        'x-internal-secret': internalSecret,
        'x-org-id': String(org.company_id),
        'x-org-plan': org.plan,
        'x-org-plan-started-at': org.plan_started_at,
      };
      const phoneOf = (i) => String(393_400_000_000 + (i % 100));
      // Status webhooks about messages this run sent (`delivered` again: recorded once).
      const wamids = [];
      const inboundPath = new URL(channel.inbound_url).pathname;
      const signedStatusWebhook = (i) => {
        const body = statusWebhook({
          wabaId: String(org.company_id),
          displayPhoneNumber: '15550000000',
          phoneNumberId: '1',
          wamid: wamids[i % wamids.length],
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient: phoneOf(i),
        });
        const signature = createHmac('sha256', channel.app_secret)
          .update(JSON.stringify(body))
          .digest('hex');
        return { body, headers: { 'x-hub-signature-256': `sha256=${signature}` } };
      };
      const webhookTo = (base) => (i) => {
        const { body, headers } = signedStatusWebhook(i);
        return caller.post(`${base}${inboundPath}`, body, headers);
      };
      const sending = (call) => async (i) => {
        const answer = await call(i);
        if (answer.status === 200) wamids.push(JSON.parse(answer.text).message_wamid);
        return answer;
      };
      const sendBody = (i) => ({ phone: phoneOf(i), message: `bench ${i}` });
      const viaGateway = {
        contacts: () =>
          caller.get(`${gateway}/api/svc/getContacts?page=1&per_page=1`, {
            authorization: `Bearer ${token}`,
          }),
        send: sending((i) =>
          caller.post(`${gateway}/api/svc/sendMessageToPhoneNumber`, { token, ...sendBody(i) }),
        ),
        webhook: webhookTo(gateway),
      };
      const direct = {
        contacts: () =>
          caller.get(`${system.urls.contacts}/api/svc/getContacts?page=1&per_page=1`, ownerHeaders),
        send: (i) =>
          caller.post(
            `${system.urls.messaging}/api/svc/sendMessageToPhoneNumber`,
            sendBody(i),
            ownerHeaders,
          ),
        webhook: webhookTo(system.urls.inbound),
      };

      // Warm-up: contacts for every phone, JIT, connection pools, the token cache.
      await load('warm-up (not counted)', 300, CONCURRENCY, viaGateway.send);
      await load('warm-up (not counted)', 300, CONCURRENCY, viaGateway.contacts);
      await load('warm-up (not counted)', 300, CONCURRENCY, direct.contacts);
      await load('warm-up (not counted)', 300, CONCURRENCY, viaGateway.webhook);

      const pids = {
        gateway: system.pidOf('gateway'),
        contacts: system.pidOf('contacts'),
        messaging: system.pidOf('messaging'),
        inbound: system.pidOf('inbound'),
      };
      const idle = await idleMsPerSecond(pids);
      console.log(
        `\nidle, ms of CPU a second: ${Object.entries(idle)
          .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
          .join(', ')}`,
      );
      console.log(`\n${REQUESTS} requests a run, ${CONCURRENCY} in flight:`);
      const pairs = [
        ['getContacts', direct.contacts, viaGateway.contacts],
        ['send', direct.send, viaGateway.send],
        ['status webhook', direct.webhook, viaGateway.webhook],
      ];
      const runs = [];
      for (const [name, straight, proxied] of pairs) {
        if (ONLY && ONLY !== name) continue;
        const owner = name === 'status webhook' ? 'inbound' : 'owner';
        runs.push(await measured(`${name}: ${owner} directly (baseline)`, pids, straight, idle));
        runs.push(await measured(`${name}: through the gateway`, pids, proxied, idle));
      }
      return runs;
    },
  );
  console.table(rows);
  const gatewayMs = (name) =>
    rows.find((row) => row.run === `${name}: through the gateway`)?.['gateway net ms/req'];
  console.log(
    `gateway CPU per proxied request, less its idle work: ${[
      'getContacts',
      'send',
      'status webhook',
    ]
      .filter((name) => gatewayMs(name) !== undefined)
      .map((name) => `${name} ${gatewayMs(name).toFixed(3)} ms`)
      .join(', ')}`,
  );
  // A send reaches the gateway's live feed however it came in, so the hop is the difference
  // between the gateway's CPU per request through it and with the owner called directly.
  const gatewayRaw = (run) => rows.find((row) => row.run === run)?.['gateway ms/req'];
  const hops = rows
    .filter((row) => row.run.endsWith(': through the gateway'))
    .map((row) => {
      const name = row.run.slice(0, -': through the gateway'.length);
      const owner = name === 'status webhook' ? 'inbound' : 'owner';
      const baseline = gatewayRaw(`${name}: ${owner} directly (baseline)`) ?? 0;
      return `${name} ${(row['gateway ms/req'] - baseline).toFixed(3)} ms`;
    });
  console.log(`the hop (through the gateway less owner directly, gateway CPU): ${hops.join(', ')}`);
}

main()
  .finally(() => caller.destroy())
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
