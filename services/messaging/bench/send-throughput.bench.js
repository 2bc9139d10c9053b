// Sending through the gateway (issue 4, point 9): accepted sends per second and p50/p99 latency of
// `POST /api/svc/sendMessageToPhoneNumber` through the gateway to the provider simulator, beside a
// baseline from the same run — the same load sent straight at the simulator's Cloud API.
//
//   npx tsc -b && node services/messaging/bench/send-throughput.bench.js [SENDS]
//
// Env: SENDS (default 2000), CONCURRENCY (requests in flight, default 32), PHONES (distinct
// recipients, cycled; default 200), SEND_RATE_PER_SECOND (messaging's token bucket per number,
// default 100000: unpaced, to measure the pipeline; 80 shows the provider's default pacing),
// STATUS_WEBHOOKS=1 (the simulator posts sent/delivered/read back through inbound while the
// service run goes; default off), MONGODB_URL, AMQP_URL, BASE_PORT (default 18080).
// Every process runs on its own, started by scripts/launcher.js from the compiled dist/ files,
// in a RabbitMQ vhost and database prefix of its own (both removed at the end).
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const http = require('node:http');
const path = require('node:path');
const mongoose = require('mongoose');
const { launchSystem } = require(path.join(__dirname, '..', '..', '..', 'scripts', 'launcher'));

const SENDS = Number(process.argv[2] ?? process.env.SENDS ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const PHONES = Number(process.env.PHONES ?? 200);
const SEND_RATE = process.env.SEND_RATE_PER_SECOND ?? '100000';
const STATUS_WEBHOOKS = process.env.STATUS_WEBHOOKS === '1';
const BASE_PORT = Number(process.env.BASE_PORT ?? 18080);
const MONGODB_URL = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://127.0.0.1:5672';
const tag = randomBytes(4).toString('hex');
const prefix = `b_msg_${tag}_`;
const vhost = `b_msg_${tag}`;
const adminToken = randomBytes(24).toString('hex');
const simToken = `bench-${tag}`;

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One JSON POST with a keep-alive agent; resolves with status and body text. */
function post(url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          ...headers,
        },
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Runs `count` calls with `CONCURRENCY` in flight; counts 2xx answers and their latencies. */
async function load(label, count, call) {
  const latencies = [];
  const failures = new Map();
  let next = 0;
  const started = process.hrtime.bigint();
  async function worker() {
    while (next < count) {
      const index = next++;
      const t0 = process.hrtime.bigint();
      const answer = await call(index).catch((error) => ({ status: 0, text: String(error) }));
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (answer.status >= 200 && answer.status < 300) latencies.push(ms);
      else failures.set(answer.status, (failures.get(answer.status) ?? 0) + 1);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const row = {
    run: label,
    accepted: latencies.length,
    refused: count - latencies.length,
    seconds: Number(seconds.toFixed(2)),
    'accepted/s': Math.round(latencies.length / seconds),
    'p50 ms': Number(percentile(latencies, 50).toFixed(1)),
    'p99 ms': Number(percentile(latencies, 99).toFixed(1)),
  };
  if (failures.size > 0) row.failures = JSON.stringify(Object.fromEntries(failures));
  console.log(
    `  ${label}: ${row['accepted/s']}/s, p50 ${row['p50 ms']} ms, p99 ${row['p99 ms']} ms`,
  );
  return row;
}

const phoneOf = (index) => String(393_400_000_000 + (index % PHONES));

async function main() {
  execFileSync('rabbitmqctl', ['add_vhost', vhost], { stdio: 'ignore' });
  execFileSync('rabbitmqctl', ['set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*'], {
    stdio: 'ignore',
  });
  const amqpUrl = new URL(AMQP_URL);
  amqpUrl.pathname = `/${vhost}`;
  let system;
  try {
    system = await launchSystem({
      basePort: BASE_PORT,
      env: {
        MONGODB_URL,
        MONGODB_DB_PREFIX: prefix,
        AMQP_URL: amqpUrl.toString(),
        ADMIN_API_TOKEN: adminToken,
        INTERNAL_API_SECRET: randomBytes(24).toString('hex'),
        LOG_LEVEL: 'warn',
        SEND_RATE_PER_SECOND: SEND_RATE,
        SIM_THROUGHPUT_PER_SECOND: '0',
        SIM_ACCESS_TOKEN: simToken,
        SIM_STATUS_DELAYS_MS: STATUS_WEBHOOKS ? '100,200,300' : '',
        SIM_PAIR_RATE_LIMIT: 'false',
      },
    });
    const gateway = system.urls.gateway;
    const simulator = `http://127.0.0.1:${BASE_PORT + 10}`;
    const created = await post(
      `${gateway}/admin/organizations`,
      { name: 'Bench Co', plan: 'premium' },
      { authorization: `Bearer ${adminToken}` },
    );
    if (created.status !== 201) throw new Error(`create organization: ${created.text}`);
    const { token, channel } = JSON.parse(created.text);

    // Warm-up: contacts for every phone, JIT, connection pools.
    await load('warm-up (not counted)', Math.min(PHONES, SENDS), (i) =>
      post(`${gateway}/api/svc/sendMessageToPhoneNumber`, {
        token,
        phone: phoneOf(i),
        message: `warm-up ${i}`,
      }),
    );

    console.log(`\n${SENDS} sends, ${CONCURRENCY} in flight, ${PHONES} recipients:`);
    // The baseline's sends are not messaging's: no status webhooks for them, so that they do not
    // reach messaging as statuses of unknown messages while the service run goes.
    if (STATUS_WEBHOOKS) {
      await post(`${simulator}/sim/faults`, {
        phone_number_id: channel.phone_number_id,
        statuses: [],
      });
    }
    const baseline = await load('baseline: straight at the simulator', SENDS, (i) =>
      post(
        `${simulator}/v24.0/${channel.phone_number_id}/messages`,
        {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: phoneOf(i),
          type: 'text',
          text: { body: `bench ${i}` },
        },
        { authorization: `Bearer ${simToken}` },
      ),
    );
    if (STATUS_WEBHOOKS) {
      await new Promise((resolve, reject) =>
        http
          .request(`${simulator}/sim/faults`, { method: 'DELETE', agent }, (response) => {
            response.resume().on('end', resolve);
          })
          .on('error', reject)
          .end(),
      );
    }
    const service = await load('service: gateway → messaging → simulator', SENDS, (i) =>
      post(`${gateway}/api/svc/sendMessageToPhoneNumber`, {
        token,
        phone: phoneOf(i),
        message: `bench ${i}`,
      }),
    );
    console.log(
      `\nsendMessageToPhoneNumber, ${SENDS} sends, concurrency ${CONCURRENCY}, ` +
        `SEND_RATE_PER_SECOND=${SEND_RATE}, status webhooks ${STATUS_WEBHOOKS ? 'on' : 'off'}`,
    );
    console.table([baseline, service]);
  } finally {
    agent.destroy();
    await system?.stop();
    const connection = await mongoose.createConnection(MONGODB_URL).asPromise();
    const { databases } = await connection.db.admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) {
      if (name.startsWith(prefix)) await connection.useDb(name).dropDatabase();
    }
    await connection.close();
    execFileSync('rabbitmqctl', ['delete_vhost', vhost], { stdio: 'ignore' });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
