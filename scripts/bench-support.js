// What the benchmark scripts share: keep-alive JSON calls, a closed-loop load with latency
// percentiles, and a whole system launched in a RabbitMQ vhost and database prefix of its own
// (both removed at the end). Benchmarks run the compiled dist/ files: `npx tsc -b` first.
const { randomBytes } = require('node:crypto');
const http = require('node:http');
const mongoose = require('mongoose');
const { launchSystem } = require('./launcher');
const { createRabbitAdmin, managementUrlOf } = require('./rabbitmq-admin');

const MONGODB_URL = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://127.0.0.1:5672';
const rabbitAdmin = createRabbitAdmin(managementUrlOf(AMQP_URL));

function createCaller(maxSockets) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  /** One HTTP call with a JSON body (or none); resolves with status and body text. */
  function call(method, url, body, headers = {}) {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const request = http.request(
        url,
        {
          method,
          agent,
          headers: payload
            ? { 'content-type': 'application/json', 'content-length': payload.length, ...headers }
            : headers,
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
  return {
    post: (url, body, headers) => call('POST', url, body, headers),
    get: (url, headers) => call('GET', url, undefined, headers),
    del: (url, headers) => call('DELETE', url, undefined, headers),
    destroy: () => agent.destroy(),
  };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** A call slower than this is counted by the second it started in (where a run's tail came from). */
const SLOW_MS = 100;

/**
 * Runs `count` calls with `concurrency` in flight; counts 2xx answers and their latencies. With
 * `ratePerSecond`, call i starts at i/rate seconds whatever the earlier ones are doing (open
 * loop, as real senders do), `concurrency` then being only a cap on calls in flight.
 */
async function load(label, count, concurrency, call, ratePerSecond = 0) {
  const latencies = [];
  const failures = new Map();
  /** Calls slower than SLOW_MS, by the second of the run they started in. */
  const slow = new Map();
  let next = 0;
  const started = process.hrtime.bigint();
  const dueAt = (index) => started + BigInt(Math.round((index * 1e9) / ratePerSecond));
  async function worker() {
    while (next < count) {
      const index = next++;
      if (ratePerSecond > 0) {
        const wait = Number(dueAt(index) - process.hrtime.bigint()) / 1e6;
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const t0 = process.hrtime.bigint();
      const answer = await call(index).catch((error) => ({ status: 0, text: String(error) }));
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (answer.status >= 200 && answer.status < 300) latencies.push(ms);
      else failures.set(answer.status, (failures.get(answer.status) ?? 0) + 1);
      if (ms > SLOW_MS) {
        const second = Math.floor(Number(t0 - started) / 1e9);
        slow.set(second, (slow.get(second) ?? 0) + 1);
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
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
  if (slow.size > 0) {
    const worst = [...slow].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(
      `  calls over ${SLOW_MS} ms by the second they started in (worst first): ` +
        worst.map(([second, n]) => `${second}s ${n}`).join(', '),
    );
  }
  return row;
}

/**
 * Launches every process on `basePort` with `env` (and `replicas`: extra processes per service,
 * see launcher.js), runs `fn({system, adminToken, internalSecret,
 * simulator, prefix, vhost, rabbitAdmin})`, and removes the vhost and databases afterwards, whatever happened
 * (the databases stay with BENCH_KEEP_DATABASES=1).
 */
async function withBenchSystem(name, { basePort, env, replicas }, fn) {
  const tag = randomBytes(4).toString('hex');
  const prefix = `b_${name}_${tag}_`;
  const vhost = `b_${name}_${tag}`;
  const adminToken = randomBytes(24).toString('hex');
  const internalSecret = randomBytes(24).toString('hex');
  await rabbitAdmin.addVhost(vhost);
  const amqpUrl = new URL(AMQP_URL);
  amqpUrl.pathname = `/${vhost}`;
  let system;
  try {
    system = await launchSystem({
      basePort,
      replicas,
      env: {
        MONGODB_URL,
        MONGODB_DB_PREFIX: prefix,
        AMQP_URL: amqpUrl.toString(),
        ADMIN_API_TOKEN: adminToken,
        INTERNAL_API_SECRET: internalSecret,
        LOG_LEVEL: 'warn',
        ...env,
      },
    });
    return await fn({
      system,
      adminToken,
      internalSecret,
      simulator: system.urls['provider-simulator'],
      prefix,
      vhost,
      rabbitAdmin,
    });
  } finally {
    await system?.stop();
    // BENCH_KEEP_DATABASES=1 leaves the run's databases in place, to look at what was stored.
    if (process.env.BENCH_KEEP_DATABASES === '1') {
      console.log(`databases kept: ${prefix}*`);
    } else {
      const connection = await mongoose.createConnection(MONGODB_URL).asPromise();
      const { databases } = await connection.db.admin().listDatabases({ nameOnly: true });
      for (const { name: db } of databases) {
        if (db.startsWith(prefix)) await connection.useDb(db).dropDatabase();
      }
      await connection.close();
    }
    await rabbitAdmin.deleteVhost(vhost);
  }
}

module.exports = { createCaller, load, percentile, withBenchSystem };
