// Outbound webhook delivery: deliveries per second and p99 latency from an
// event on `svc.events` to its arrival at a local receiver, beside a baseline from the same run —
// the same receiver hit by plain Node HTTP POSTs of the same bytes at equal concurrency.
//
//   npx tsc -b && node services/webhooks/bench/delivery-throughput.bench.js [EVENTS]
//
// Env: EVENTS (default 2000), WEBHOOKS (subscribed webhooks per event, default 4), RATE (events/s
// of the paced run, default 40), RECEIVER_DELAY_MS (receiver think time, default 0), REPLICAS
// (webhooks processes, default 1), MONGODB_URL, AMQP_URL; any WEBHOOK_* variable is passed to the
// service's configuration. Runs in a RabbitMQ vhost and database prefix of its own, both removed
// at the end. Plain JavaScript on the compiled service (dist/), so that it needs no TypeScript
// runner.
//
// Every part runs as its own process, as in production: the webhooks service (`dist/main.js`,
// REPLICAS of them), the receiver (receiver.js) and the baseline's client (baseline-client.js);
// this process only publishes the events and keeps the score. So the service and the baseline's
// client each have the receiver in another process and a core to share with it alike.
//
// Besides the table it prints CPU per delivery over the burst, read from /proc: the webhooks
// process(es) and the receiver, beside the same per plain POST of the baseline (client and
// receiver), the publisher (this process), and the whole-server rows of docdb, PostgreSQL and
// RabbitMQ; and database commands per delivery (driver command monitoring). The same over the
// paced run, where batches are small (the send benchmark's steady pace).
// Set CPU_PROF_DIR to profile the webhooks process(es) over the whole run (`node --cpu-prof`,
// written when they stop; read with `node scripts/cpu-profile-summary.js <file>`).
const { fork, spawn } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const http = require('node:http');
const path = require('node:path');
const { connect } = require('amqplib');
const mongoose = require('mongoose');
const measure = require(path.join(__dirname, '..', '..', '..', 'scripts', 'bench-measure'));
const { createRabbitAdmin, managementUrlOf } = require(
  path.join(__dirname, '..', '..', '..', 'scripts', 'rabbitmq-admin'),
);

const dist = path.join(__dirname, '..', 'dist');
const { webhooksConfigSchema } = require(path.join(dist, 'config'));

const EVENTS = Number(process.argv[2] ?? process.env.EVENTS ?? 2000);
const WEBHOOKS = Number(process.env.WEBHOOKS ?? 4);
const RATE = Number(process.env.RATE ?? 40);
const REPLICAS = Math.max(1, Number(process.env.REPLICAS ?? 1));
const CPU_PROF_DIR = process.env.CPU_PROF_DIR;
const MONGODB_URL = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://127.0.0.1:5672';
const rabbitAdmin = createRabbitAdmin(managementUrlOf(AMQP_URL));
const COMPANY = 1;
const tag = randomBytes(4).toString('hex');
const prefix = `b_wh_${tag}_`;
const vhost = `b_wh_${tag}`;
const secret = randomBytes(24).toString('hex');

/** A child process with an IPC channel: `ask` sends a message and resolves with the next answer of `type`. */
async function forkChild(file, env = {}) {
  const child = fork(path.join(__dirname, file), [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map();
  child.on('message', (message) => {
    const resolve = waiting.get(message.type);
    waiting.delete(message.type);
    resolve?.(message);
  });
  const next = (type) => new Promise((resolve) => waiting.set(type, resolve));
  return {
    child,
    next,
    ask(message, type) {
      const answer = next(type);
      child.send(message);
      return answer;
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.disconnect();
      }),
  };
}

async function startReceiver() {
  const receiver = await forkChild('receiver.js');
  const { port } = await receiver.next('listening');
  return { ...receiver, port };
}

async function startClient() {
  const client = await forkChild('baseline-client.js');
  await client.next('ready');
  return client;
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
    'max ms': latencies.reduce((max, value) => Math.max(max, value), -Infinity),
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

/** Plain keep-alive POSTs from the client process to the receiver process, at `concurrency`. */
async function baseline(client, receiver, total, concurrency, idPrefix) {
  const body = JSON.stringify({ event: 'message_sent', ...sampleEvent(0) });
  const cpuBefore = measure.snapshotCpu();
  const { sentAt, startedAt, endedAt } = await client.ask(
    { type: 'run', port: receiver.port, total, concurrency, body, idPrefix },
    'done',
  );
  const cpuAfter = measure.snapshotCpu();
  const { arrivals } = await receiver.ask({ type: 'take', side: 'baseline' }, 'take');
  const arrivedAt = new Map(arrivals);
  const latencies = sentAt.map(([id, at]) => arrivedAt.get(id) - at);
  return {
    row: summary(`baseline: plain POSTs, ${concurrency} concurrent`, latencies, startedAt, endedAt),
    cpuBefore,
    cpuAfter,
  };
}

async function main() {
  await rabbitAdmin.addVhost(vhost);
  const amqpUrl = new URL(AMQP_URL);
  amqpUrl.pathname = `/${vhost}`;

  const publishedAt = new Map();
  const receiver = await startReceiver();
  const client = await startClient();
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('WEBHOOK_')),
    ),
    MONGODB_URL,
    MONGODB_DB_PREFIX: prefix,
    AMQP_URL: amqpUrl.toString(),
    INTERNAL_API_SECRET: secret,
    LOG_LEVEL: 'warn',
    ALLOW_PRIVATE_URLS: 'true',
    DB_COMMAND_STATS: 'true',
  };
  const config = webhooksConfigSchema.parse({ ...env, PORT: '0' });
  const services = [];
  // First attempts run while their event is held: at most prefetch × webhooks, and at most the
  // per-endpoint limit for each webhook.
  const concurrency = Math.min(
    config.WEBHOOK_EVENT_PREFETCH * WEBHOOKS,
    WEBHOOKS * config.WEBHOOK_ENDPOINT_CONCURRENCY,
  );
  const results = [];
  let burst;
  let pacedCost;
  let connection;
  try {
    for (let i = 0; i < REPLICAS; i++) services.push(await startService(env));
    for (let i = 0; i < WEBHOOKS; i++) {
      const response = await fetch(`${services[0].url}/developer/webhooks`, {
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
          url: `http://127.0.0.1:${receiver.port}/w${i}`,
          events: ['message_sent'],
        }),
      });
      if (response.status !== 201) throw new Error(`webhook: ${await response.text()}`);
    }
    connection = await connect(amqpUrl.toString());
    const channel = await connection.createConfirmChannel();
    const publish = (event) => {
      publishedAt.set(event.id, Date.now());
      channel.publish('svc.events', event.event, Buffer.from(JSON.stringify(event)), {
        persistent: true,
        messageId: event.id,
      });
    };
    const waitForAll = async (count) => {
      while ((await receiver.ask({ type: 'count', side: 'service' }, 'count')).count < count) {
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const takeServiceLatencies = async () => {
      const { arrivals } = await receiver.ask({ type: 'take', side: 'service' }, 'take');
      return {
        latencies: arrivals.map(([id, at]) => at - publishedAt.get(id)),
        lastArrival: arrivals.reduce((last, [, at]) => Math.max(last, at), 0),
      };
    };

    // Warm-up: connections, JIT, the database's first pages.
    for (let i = 0; i < 50; i++) publish(sampleEvent(i));
    await channel.waitForConfirms();
    await waitForAll(50 * WEBHOOKS);
    await takeServiceLatencies();
    await baseline(client, receiver, 200, concurrency, 'warm-');

    const plain = await baseline(client, receiver, EVENTS * WEBHOOKS, concurrency, 'b-');
    results.push(plain.row);

    const commandsBefore = await commandCounts(services);
    const cpuBefore = measure.snapshotCpu();
    const burstStart = Date.now();
    for (let i = 0; i < EVENTS; i++) {
      publish(sampleEvent(i));
      if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
    }
    await channel.waitForConfirms();
    await waitForAll(EVENTS * WEBHOOKS);
    // The last log rows of the burst are written just after their requests arrived.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cpuAfter = measure.snapshotCpu();
    const commands = measure.growth(commandsBefore, await commandCounts(services));
    const burstRun = await takeServiceLatencies();
    results.push(
      summary(
        `service: burst of ${EVENTS} events × ${WEBHOOKS} webhooks`,
        burstRun.latencies,
        burstStart,
        burstRun.lastArrival,
      ),
    );
    const pids = {
      servicePids: services.map((service) => service.child.pid),
      receiverPid: receiver.child.pid,
      clientPid: client.child.pid,
    };
    burst = {
      deliveries: EVENTS * WEBHOOKS,
      cpuBefore,
      cpuAfter,
      commands,
      plain: { posts: EVENTS * WEBHOOKS, cpuBefore: plain.cpuBefore, cpuAfter: plain.cpuAfter },
      ...pids,
    };

    // Latency below saturation: events at a steady RATE per second.
    const paced = Math.min(EVENTS, RATE * 10);
    const pacedCommandsBefore = await commandCounts(services);
    const pacedCpuBefore = measure.snapshotCpu();
    const pacedStart = Date.now();
    for (let i = 0; i < paced; i++) {
      const due = pacedStart + (i * 1000) / RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      publish(sampleEvent(i));
    }
    await channel.waitForConfirms();
    await waitForAll(paced * WEBHOOKS);
    await new Promise((resolve) => setTimeout(resolve, 100));
    pacedCost = {
      deliveries: paced * WEBHOOKS,
      cpuBefore: pacedCpuBefore,
      cpuAfter: measure.snapshotCpu(),
      commands: measure.growth(pacedCommandsBefore, await commandCounts(services)),
      ...pids,
    };
    const pacedRun = await takeServiceLatencies();
    results.push(
      summary(
        `service: paced ${RATE} events/s × ${WEBHOOKS} webhooks`,
        pacedRun.latencies,
        pacedStart,
        pacedRun.lastArrival,
      ),
    );
  } finally {
    await connection?.close();
    await Promise.all(services.map((service) => service.stop()));
    await client.stop();
    await receiver.stop();
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
      (process.env.RECEIVER_DELAY_MS
        ? `, receiver think time ${process.env.RECEIVER_DELAY_MS} ms`
        : ''),
  );
  console.table(results);
  const [plainRow, burstRow] = results;
  console.log(
    `burst at ${Math.round((100 * burstRow['deliveries/s']) / plainRow['deliveries/s'])} % of the baseline` +
      ` (${burstRow['deliveries/s']}/s beside ${plainRow['deliveries/s']}/s)`,
  );
  printCost('burst', burst);
  printCost('paced', pacedCost);
}

/** A free local port, for a service's HTTP server. */
function freePort() {
  const server = http.createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    }),
  );
}

/** A webhooks process (`dist/main.js`) on the bench's queues and database, once it is ready. */
async function startService(env) {
  const port = await freePort();
  const profile = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, path.join(dist, 'main.js')], {
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
    if (waited > 30_000 || child.exitCode !== null)
      throw new Error('a webhooks process did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** Database commands the service (every process) has sent so far, by command name. */
async function commandCounts(services) {
  const total = new Map();
  for (const service of services) {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const count = measure.counterByLabel(text, 'switchboard_db_commands_total', 'command');
    for (const [name, value] of count) total.set(name, (total.get(name) ?? 0) + value);
  }
  return total;
}

function printCost(run, cost) {
  const { deliveries, cpuBefore, cpuAfter, commands, plain } = cost;
  const named = new Map([
    [process.pid, 'publisher'],
    [cost.receiverPid, 'receiver'],
    [cost.clientPid, 'client'],
    ...cost.servicePids.map((pid) => [pid, 'webhooks']),
  ]);
  const { groups } = measure.cpuBetween(cpuBefore, cpuAfter, named);
  const per = (group) => (groups.get(group) ?? 0) / deliveries;
  const service = per('webhooks');
  const receiving = per('receiver');
  let line =
    `cpu per delivery (${run}): webhooks ${service.toFixed(3)} ms` +
    (cost.servicePids.length > 1 ? ` (${cost.servicePids.length} processes)` : '') +
    `, receiver ${receiving.toFixed(3)} ms, together ${(service + receiving).toFixed(3)} ms` +
    `; publisher ${per('publisher').toFixed(3)} ms`;
  if (plain) {
    const plainGroups = measure.cpuBetween(plain.cpuBefore, plain.cpuAfter, named).groups;
    const perPost = (group) => (plainGroups.get(group) ?? 0) / plain.posts;
    const postTotal = perPost('client') + perPost('receiver');
    line +=
      `\n  a plain POST: client ${perPost('client').toFixed(3)} ms, receiver` +
      ` ${perPost('receiver').toFixed(3)} ms, together ${postTotal.toFixed(3)} ms;` +
      ` webhooks ÷ client ${(service / perPost('client')).toFixed(1)}×`;
  }
  console.log(line);
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
