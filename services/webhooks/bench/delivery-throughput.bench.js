// Outbound webhook delivery: deliveries per second and p99 latency from an
// event on `svc.events` to its arrival at a local receiver, beside a baseline from the same run —
// the same receiver hit by plain Node HTTP POSTs of the same bytes at equal concurrency.
//
//   npx tsc -b && node services/webhooks/bench/delivery-throughput.bench.js [EVENTS]
//
// Env: EVENTS (default 2000), WEBHOOKS (subscribed webhooks per event, default 4), RATE (events/s
// of the paced run, default 40), RECEIVER_DELAY_MS (receiver think time, default 0), REPLICAS
// (webhooks processes, default 1: the one in this process; the others run dist/main.js as child
// processes on the same queues and database, their CPU and commands counted too), MONGODB_URL,
// AMQP_URL; any WEBHOOK_* variable is passed to the service's configuration. Runs in a RabbitMQ
// vhost and database prefix of its own, both removed at the end.
// Plain JavaScript on the compiled service (dist/), so that it needs no TypeScript runner.
//
// Besides the table it prints CPU per delivery over the burst, read from /proc: this process
// (service, receiver and publisher together) beside the same per plain POST of the baseline (client
// and receiver), the difference (about the service's own cost), and the whole-server rows of
// docdb, PostgreSQL and RabbitMQ; and database commands per delivery (driver command monitoring).
// The same over the paced run, where batches are small (the send benchmark's steady pace).
// Profile with `node --cpu-prof --cpu-prof-dir=/tmp/prof services/webhooks/bench/...` (the whole
// run), or set CPU_PROF_DIR to profile the burst and the paced run alone (`burst-<pid>.cpuprofile`,
// `paced-<pid>.cpuprofile`, this process).
const { spawn } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const fs = require('node:fs');
const inspector = require('node:inspector/promises');
const http = require('node:http');
const path = require('node:path');
const { connect } = require('amqplib');
const mongoose = require('mongoose');
const measure = require(path.join(__dirname, '..', '..', '..', 'scripts', 'bench-measure'));
const { createRabbitAdmin, managementUrlOf } = require(
  path.join(__dirname, '..', '..', '..', 'scripts', 'rabbitmq-admin'),
);

const dist = path.join(__dirname, '..', 'dist');
const { startService } = require(path.join(dist, 'start-service'));
const { webhooksConfigSchema } = require(path.join(dist, 'config'));

const EVENTS = Number(process.argv[2] ?? process.env.EVENTS ?? 2000);
const WEBHOOKS = Number(process.env.WEBHOOKS ?? 4);
const RATE = Number(process.env.RATE ?? 40);
const RECEIVER_DELAY_MS = Number(process.env.RECEIVER_DELAY_MS ?? 0);
const REPLICAS = Number(process.env.REPLICAS ?? 1);
const CPU_PROF_DIR = process.env.CPU_PROF_DIR;
const MONGODB_URL = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://127.0.0.1:5672';
const rabbitAdmin = createRabbitAdmin(managementUrlOf(AMQP_URL));
const COMPANY = 1;
const tag = randomBytes(4).toString('hex');
const prefix = `b_wh_${tag}_`;
const vhost = `b_wh_${tag}`;
const secret = randomBytes(24).toString('hex');

/** The receiver both runs hit: reads the body, notes when it arrived, answers 200. */
function startReceiver(onArrival) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      onArrival(req, Date.now());
      const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (RECEIVER_DELAY_MS > 0) setTimeout(answer, RECEIVER_DELAY_MS);
      else answer();
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function summary(label, latencies, startedAt, endedAt) {
  const seconds = (endedAt - startedAt) / 1000;
  return {
    run: label,
    deliveries: latencies.length,
    seconds: Number(seconds.toFixed(2)),
    'deliveries/s': Math.round(latencies.length / seconds),
    'p50 ms': percentile(latencies, 50),
    'p99 ms': percentile(latencies, 99),
    'max ms': Math.max(...latencies),
  };
}

function sampleEvent(i) {
  return {
    id: randomUUID(),
    event: 'message_sent',
    timestamp: new Date().toISOString(),
    company_id: COMPANY,
    data: {
      message_id: i,
      message_wamid: `wamid.BENCH${i}`,
      contact_id: 1,
      phone: '15550001234',
      company_id: COMPANY,
    },
  };
}

/** Plain Node HTTP: `concurrency` workers POST the same kind of body, keep-alive, no retries. */
async function baseline(port, total, concurrency, arrivals) {
  const agent = new http.Agent({ keepAlive: true });
  const body = Buffer.from(JSON.stringify({ event: 'message_sent', ...sampleEvent(0) }));
  const latencies = [];
  let next = 0;
  const startedAt = Date.now();
  const cpuBefore = process.cpuUsage();
  const worker = async () => {
    while (next < total) {
      const id = String(next++);
      const sentAt = Date.now();
      await new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/baseline',
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': body.length,
              'x-webhook-id': id,
            },
          },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      latencies.push(arrivals.get(id) - sentAt);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const endedAt = Date.now();
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  return {
    ...summary(`baseline: plain POSTs, ${concurrency} concurrent`, latencies, startedAt, endedAt),
    cpuMsPerPost: (cpu.user + cpu.system) / 1000 / total,
  };
}

async function main() {
  await rabbitAdmin.addVhost(vhost);
  const amqpUrl = new URL(AMQP_URL);
  amqpUrl.pathname = `/${vhost}`;

  // Event id → when it was published; arrivals keyed by X-Webhook-Id and path.
  const publishedAt = new Map();
  const arrivals = new Map();
  let serviceArrivals = [];
  const receiver = await startReceiver((req, at) => {
    const id = req.headers['x-webhook-id'];
    if (req.url === '/baseline') arrivals.set(id, at);
    else serviceArrivals.push(at - publishedAt.get(id));
  });
  const port = receiver.address().port;

  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('WEBHOOK_')),
    ),
    PORT: '0',
    MONGODB_URL,
    MONGODB_DB_PREFIX: prefix,
    AMQP_URL: amqpUrl.toString(),
    INTERNAL_API_SECRET: secret,
    LOG_LEVEL: 'warn',
    ALLOW_PRIVATE_URLS: 'true',
    DB_COMMAND_STATS: 'true',
  };
  const config = webhooksConfigSchema.parse(env);
  const service = await startService(config);
  const replicas = [];
  for (let i = 1; i < REPLICAS; i++) replicas.push(await startReplica(env));
  // First attempts run while their event is held: at most prefetch × webhooks, and at most the
  // per-endpoint limit for each webhook.
  const concurrency = Math.min(
    config.WEBHOOK_EVENT_PREFETCH * WEBHOOKS,
    WEBHOOKS * config.WEBHOOK_ENDPOINT_CONCURRENCY,
  );
  const results = [];
  let burst;
  let pacedCost;
  try {
    for (let i = 0; i < WEBHOOKS; i++) {
      const response = await fetch(`${service.url}/developer/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-internal-secret': secret,
          'x-org-id': String(COMPANY),
          'x-org-plan': 'standard',
          'x-org-plan-started-at': new Date().toISOString(),
        },
        body: JSON.stringify({
          name: `bench ${i}`,
          url: `http://127.0.0.1:${port}/w${i}`,
          events: ['message_sent'],
        }),
      });
      if (response.status !== 201) throw new Error(`webhook: ${await response.text()}`);
    }
    const connection = await connect(amqpUrl.toString());
    const channel = await connection.createConfirmChannel();
    const publish = (event) => {
      publishedAt.set(event.id, Date.now());
      channel.publish('svc.events', event.event, Buffer.from(JSON.stringify(event)), {
        persistent: true,
        messageId: event.id,
      });
    };
    const waitForAll = async (count) => {
      while (serviceArrivals.length < count) await new Promise((r) => setTimeout(r, 20));
    };

    // Warm-up: connections, JIT, the database's first pages.
    for (let i = 0; i < 50; i++) publish(sampleEvent(i));
    await channel.waitForConfirms();
    await waitForAll(50 * WEBHOOKS);
    await baseline(port, 200, concurrency, arrivals);

    const { cpuMsPerPost, ...baselineRow } = await baseline(
      port,
      EVENTS * WEBHOOKS,
      concurrency,
      arrivals,
    );
    results.push(baselineRow);

    serviceArrivals = [];
    const profiler = CPU_PROF_DIR ? await startProfiler('burst') : undefined;
    const commandsBefore = await commandCounts(service, replicas);
    const cpuBefore = measure.snapshotCpu();
    const burstStart = Date.now();
    for (let i = 0; i < EVENTS; i++) {
      publish(sampleEvent(i));
      // A real publisher is another process: yield now and then so this one does not starve
      // the service (and the receiver) that share its event loop here.
      if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
    }
    await channel.waitForConfirms();
    await waitForAll(EVENTS * WEBHOOKS);
    const burstEnd = Date.now();
    // The last log rows of the burst are written just after their requests arrived.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cpuAfter = measure.snapshotCpu();
    const commands = measure.growth(commandsBefore, await commandCounts(service, replicas));
    await profiler?.stop();
    results.push(
      summary(
        `service: burst of ${EVENTS} events × ${WEBHOOKS} webhooks`,
        serviceArrivals,
        burstStart,
        burstEnd,
      ),
    );
    burst = {
      deliveries: EVENTS * WEBHOOKS,
      cpuBefore,
      cpuAfter,
      commands,
      cpuMsPerPost,
      replicaPids: replicas.map((replica) => replica.child.pid),
    };

    // Latency below saturation: events at a steady RATE per second.
    serviceArrivals = [];
    const paced = Math.min(EVENTS, RATE * 10);
    const pacedProfiler = CPU_PROF_DIR ? await startProfiler('paced') : undefined;
    const pacedCommandsBefore = await commandCounts(service, replicas);
    const pacedCpuBefore = measure.snapshotCpu();
    const pacedStart = Date.now();
    for (let i = 0; i < paced; i++) {
      const due = pacedStart + (i * 1000) / RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      publish(sampleEvent(i));
    }
    await channel.waitForConfirms();
    await waitForAll(paced * WEBHOOKS);
    const pacedEnd = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 100));
    pacedCost = {
      deliveries: paced * WEBHOOKS,
      cpuBefore: pacedCpuBefore,
      cpuAfter: measure.snapshotCpu(),
      commands: measure.growth(pacedCommandsBefore, await commandCounts(service, replicas)),
      replicaPids: burst.replicaPids,
    };
    await pacedProfiler?.stop();
    results.push(
      summary(
        `service: paced ${RATE} events/s × ${WEBHOOKS} webhooks`,
        serviceArrivals,
        pacedStart,
        pacedEnd,
      ),
    );
    await connection.close();
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await service.stop();
    receiver.close();
    const admin = await mongoose.createConnection(MONGODB_URL).asPromise();
    const { databases } = await admin.db.admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) {
      if (name.startsWith(prefix)) await admin.useDb(name).dropDatabase();
    }
    await admin.close();
    await rabbitAdmin.deleteVhost(vhost);
  }
  console.log(
    `\nwebhook delivery, ${EVENTS} events, ${WEBHOOKS} webhooks each, equal concurrency ${concurrency}` +
      (REPLICAS > 1 ? `, ${REPLICAS} webhooks processes` : '') +
      (RECEIVER_DELAY_MS ? `, receiver think time ${RECEIVER_DELAY_MS} ms` : ''),
  );
  console.table(results);
  const [plain, burstRow] = results;
  console.log(
    `burst at ${Math.round((100 * burstRow['deliveries/s']) / plain['deliveries/s'])} % of the baseline` +
      ` (${burstRow['deliveries/s']}/s beside ${plain['deliveries/s']}/s)`,
  );
  printCost('burst', burst);
  printCost('paced', pacedCost);
}

/** Profiles this process from now until `stop`, which writes the profile to CPU_PROF_DIR. */
async function startProfiler(run) {
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      fs.mkdirSync(CPU_PROF_DIR, { recursive: true });
      const file = path.join(CPU_PROF_DIR, `${run}-${process.pid}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      console.log(`${run} profile: ${file}`);
    },
  };
}

/** A free local port, for a replica's HTTP server. */
function freePort() {
  const server = http.createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    }),
  );
}

/** Another webhooks process on the same queues and database; resolves once it is ready. */
async function startReplica(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(dist, 'main.js')], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 100) {
    const ready = await fetch(`${url}/readyz`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ready) break;
    if (waited > 30_000 || child.exitCode !== null) throw new Error('a replica did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** Database commands the service (every replica) has sent so far, by command name. */
async function commandCounts(service, replicas) {
  const texts = [(await service.metrics.scrape()).body];
  for (const replica of replicas) texts.push(await (await fetch(`${replica.url}/metrics`)).text());
  const counts = texts.map((text) =>
    measure.counterByLabel(text, 'switchboard_db_commands_total', 'command'),
  );
  const total = new Map();
  for (const count of counts) {
    for (const [name, value] of count) total.set(name, (total.get(name) ?? 0) + value);
  }
  return total;
}

function printCost(run, { deliveries, cpuBefore, cpuAfter, commands, cpuMsPerPost, replicaPids }) {
  const named = new Map([[process.pid, 'bench'], ...replicaPids.map((pid) => [pid, 'replicas'])]);
  const { groups } = measure.cpuBetween(cpuBefore, cpuAfter, named);
  const per = (group) => (groups.get(group) ?? 0) / deliveries;
  const bench = per('bench');
  console.log(
    `cpu per delivery (${run}): ${bench.toFixed(3)} ms in this process (service, receiver,` +
      ` publisher)` +
      (cpuMsPerPost === undefined
        ? ''
        : `; a plain POST ${cpuMsPerPost.toFixed(3)} ms (client, receiver);` +
          ` difference ${(bench - cpuMsPerPost).toFixed(3)} ms`) +
      (replicaPids.length > 0 ? `; the other replicas ${per('replicas').toFixed(3)} ms` : ''),
  );
  const infra = Object.values(measure.INFRA_GROUPS)
    .map((group) => `${group} ${per(group).toFixed(3)}`)
    .join(', ');
  console.log(`whole-server cpu per delivery (other helpers' work included): ${infra} ms`);
  const total = [...commands.values()].reduce((sum, count) => sum + count, 0);
  const byName = [...commands]
    .sort((a, b) => b[1] - a[1])
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
  console.log(
    `database commands per delivery (${run}): ${(total / deliveries).toFixed(3)} (${byName})`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
