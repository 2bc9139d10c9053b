// Sending on the realistic path: `POST /api/svc/sendMessageToPhoneNumber`
// through the gateway to the provider simulator, which posts sent, delivered and read for each
// message back through inbound, while one customer webhook receiver (an HTTP server in this
// process) subscribed to `message_sent` and `message_status_updated` verifies the signature of
// every event. Printed: accepted sends/s with p50/p99, the baseline of the same run (the same
// load straight at the simulator), the raw driver ceiling of the same database, database commands
// per accepted send, the documents those commands wrote per accepted send (a bulk write is one
// command, many rows), and `cpu per send: <total> ms total, <ours> ms in our services` from /proc
// over the measured window (first send to the last webhook event, or to the last database write
// the run caused when later: the outbox relay's last clears), with a per-process breakdown, and
// the broker messages per accepted send over the same window (published, confirmed, delivered and
// acked; enqueued per queue, routed per exchange) from RabbitMQ's management API.
//
//   npx tsc -b && node services/messaging/bench/send-throughput.bench.js [SENDS]
//
// Env: SENDS (default 3000), CONCURRENCY (requests in flight, default 32), PHONES (distinct
// recipients, cycled; default 200; above SENDS every measured send goes to a new number, the
// warm-up to 200 others), STATUSES (1: the simulator posts sent/delivered/read through
// inbound, default; 0: none), RATE (sends/s started whatever the answers do, for the paced p99;
// default 0: closed loop), SEND_RATE_PER_SECOND (messaging's token bucket per number, default
// 100000: unpaced), DRAIN_TIMEOUT_MS (how long to wait for the webhook events after the last
// answer, default 120000), CPU_PROF_DIR (every service runs with --cpu-prof, its profile written
// there at exit), MESSAGING_REPLICAS and WEBHOOKS_REPLICAS (processes of each, default 1: the extra
// ones share the queues and the database; the gateway sends to the first), MONGODB_URL, AMQP_URL, BASE_PORT (default 18080; the gateway's metrics on +20,
// the receiver on +21), IDLE_SECONDS (when set: also measures what the system costs with nothing
// sent, for that many seconds right after start and again once the run has drained: CPU ms per
// second per process and database commands per second per service). CPU of docdb, PostgreSQL and RabbitMQ is the whole server's: whatever
// else uses them in the window is in it (the `other` row shows the rest of the machine).
const { createHmac, timingSafeEqual } = require('node:crypto');
const nodeHttp = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { MongoClient } = require('mongodb');
const scripts = path.join(__dirname, '..', '..', '..', 'scripts');
const { createCaller, load: loadWith, withBenchSystem } = require(
  path.join(scripts, 'bench-support'),
);
const measure = require(path.join(scripts, 'bench-measure'));

const SENDS = Number(process.argv[2] ?? process.env.SENDS ?? 3000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const PHONES = Number(process.env.PHONES ?? 200);
const STATUSES = (process.env.STATUSES ?? process.env.STATUS_WEBHOOKS ?? '1') !== '0';
const RATE = Number(process.env.RATE ?? 0);
const SEND_RATE = process.env.SEND_RATE_PER_SECOND ?? '100000';
const DRAIN_TIMEOUT_MS = Number(process.env.DRAIN_TIMEOUT_MS ?? 120_000);
const CPU_PROF_DIR = process.env.CPU_PROF_DIR;
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 0);
const REPLICAS = {
  messaging: Number(process.env.MESSAGING_REPLICAS ?? 1),
  webhooks: Number(process.env.WEBHOOKS_REPLICAS ?? 1),
};
const BASE_PORT = Number(process.env.BASE_PORT ?? 18080);
const METRICS_PORT = BASE_PORT + 20;
const RECEIVER_PORT = BASE_PORT + 21;
const MONGODB_URL = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017';
// Paced, calls start on time whatever is in flight: enough workers that the cap never binds.
const IN_FLIGHT = RATE > 0 ? Math.max(CONCURRENCY, RATE * 20) : CONCURRENCY;
const OUR_SERVICES = ['gateway', 'messaging', 'contacts', 'campaigns', 'webhooks', 'inbound'];
const simToken = `bench-${process.pid}`;
const http = createCaller(IN_FLIGHT);
const post = http.post;
const load = (label, count, call, rate = 0) => loadWith(label, count, IN_FLIGHT, call, rate);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const phoneOf = (index) => String(393_400_000_000 + (index % PHONES));

/** The customer's endpoint: counts events by name, answers 403 to a bad signature (the published webhook signature). */
function startReceiver() {
  const received = new Map();
  let secret = '';
  let badSignatures = 0;
  let lastEventAt = 0;
  const server = nodeHttp.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const given = Buffer.from(String(request.headers['x-webhook-signature'] ?? ''), 'utf8');
      const expected = Buffer.from(
        createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex'),
        'utf8',
      );
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        badSignatures += 1;
        response.writeHead(403).end();
        return;
      }
      const event = String(request.headers['x-webhook-event'] ?? JSON.parse(body).event);
      received.set(event, (received.get(event) ?? 0) + 1);
      lastEventAt = Date.now();
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(RECEIVER_PORT, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${RECEIVER_PORT}/hook`,
        trust: (value) => (secret = value),
        total: () => [...received.values()].reduce((sum, n) => sum + n, 0),
        counts: () => new Map(received),
        reset: () => received.clear(),
        badSignatures: () => badSignatures,
        lastEventAt: () => lastEventAt,
        close: () => new Promise((done) => server.close(done)),
      }),
    );
  });
}

/**
 * Waits for `expected` events, or until none has arrived for `quietMs` (an event retried by the
 * broker may come late), or the timeout. Answers when the last event came and every process's
 * CPU then (read at the poll that saw it), so that a quiet wait is not charged to the sends.
 */
async function drain(receiver, { quietMs, timeoutMs, expected }) {
  const started = Date.now();
  let seen = -1;
  let quietSince = Date.now();
  let cpu = measure.snapshotCpu();
  while (Date.now() - started < timeoutMs) {
    const total = receiver.total();
    if (total !== seen) {
      seen = total;
      quietSince = Date.now();
      cpu = measure.snapshotCpu();
    } else if (Date.now() - quietSince >= quietMs) break;
    if (expected !== undefined && total >= expected) break;
    await sleep(100);
  }
  return { at: receiver.lastEventAt() || Date.now(), cpu };
}

const ROWS_METRIC = 'switchboard_db_rows_written_total';
/** Longer than the outbox relay's longest wait before a clear is written alone. */
const WRITES_QUIET_MS = 3000;

/**
 * Commands per service by name and collection (`find messages`), the replicas of a service
 * summed under its name; or, with `metric`, another counter of theirs by `labels`.
 */
async function dbCommands(
  metricsUrls,
  metric = 'switchboard_db_commands_total',
  labels = ['command', 'collection'],
) {
  const counts = new Map();
  for (const [name, url] of metricsUrls) {
    const answer = await http.get(url).catch(() => ({ status: 0, text: '' }));
    const mine = counts.get(name) ?? new Map();
    for (const [command, n] of measure.counterByLabel(answer.text, metric, labels)) {
      mine.set(command, (mine.get(command) ?? 0) + n);
    }
    counts.set(name, mine);
  }
  return counts;
}

/** Rows written by all our services so far (the sum of their row counters). */
async function rowsWritten(metricsUrls) {
  let total = 0;
  for (const [, kinds] of await dbCommands(metricsUrls, ROWS_METRIC)) {
    for (const n of kinds.values()) total += n;
  }
  return total;
}

/**
 * Waits until our services have written nothing for `WRITES_QUIET_MS` (at most five times that):
 * answers the CPU snapshot taken at the last write seen (or `cpu`, when none came).
 */
async function settleWrites(metricsUrls, cpu) {
  let last = await rowsWritten(metricsUrls);
  let quietSince = Date.now();
  const deadline = Date.now() + 5 * WRITES_QUIET_MS;
  while (Date.now() - quietSince < WRITES_QUIET_MS && Date.now() < deadline) {
    await sleep(200);
    const now = await rowsWritten(metricsUrls);
    if (now !== last) {
      last = now;
      quietSince = Date.now();
      cpu = measure.snapshotCpu();
    }
  }
  return { cpu };
}

/** The plain driver against the same database: what one small write at a time can reach. */
async function driverCeiling(dbName) {
  const client = await new MongoClient(MONGODB_URL, { maxPoolSize: CONCURRENCY }).connect();
  const collection = client.db(dbName).collection('ceiling');
  const ops = Math.min(SENDS, 2000);
  const timed = async (count, op) => {
    let next = 0;
    const started = process.hrtime.bigint();
    const worker = async () => {
      while (next < count) await op(next++);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return count / (Number(process.hrtime.bigint() - started) / 1e9);
  };
  try {
    const insertOne = await timed(ops, (i) => collection.insertOne({ _id: i, n: 0, body: 'x' }));
    const updateOne = await timed(ops, (i) => collection.updateOne({ _id: i }, { $set: { n: 1 } }));
    const batches = Math.ceil(ops / 50);
    const insertMany = await timed(batches, (b) =>
      collection.insertMany(
        Array.from({ length: 50 }, (_, i) => ({ _id: `${b}-${i}`, n: 0, body: 'x' })),
      ),
    );
    return { insertOne, updateOne, insertManyDocs: insertMany * 50 };
  } finally {
    await client.close();
  }
}

/**
 * What the system costs with nothing sent: CPU ms per second of each process and database
 * commands per second of each service over `IDLE_SECONDS`. docdb, PostgreSQL and RabbitMQ are
 * whole-server figures (other users of the shared servers count in them); the commands are ours.
 */
async function measureIdle(label, named, metricsUrls) {
  const loadBefore = os.loadavg()[0];
  const commandsBefore = await dbCommands(metricsUrls);
  const cpuBefore = measure.snapshotCpu();
  const started = Date.now();
  await sleep(IDLE_SECONDS * 1000);
  const cpuAfter = measure.snapshotCpu();
  const seconds = (Date.now() - started) / 1000;
  const commandsAfter = await dbCommands(metricsUrls);
  const { groups } = measure.cpuBetween(cpuBefore, cpuAfter, named);
  const rows = [...groups]
    .filter(([name]) => name !== 'other')
    .map(([name, ms]) => ({ process: name, 'cpu ms per s': Number((ms / seconds).toFixed(1)) }))
    .sort((a, b) => b['cpu ms per s'] - a['cpu ms per s']);
  const ours = rows
    .filter((row) => OUR_SERVICES.includes(row.process.replace(/ \(2nd\)$/, '')))
    .reduce((sum, row) => sum + row['cpu ms per s'], 0);
  console.log(
    `\nidle ${label}, ${seconds.toFixed(0)} s: ${ours.toFixed(1)} cpu ms per s in our services ` +
      `(load average ${loadBefore.toFixed(2)} before, ${os.loadavg()[0].toFixed(2)} after)`,
  );
  console.table(rows);
  const commands = [];
  for (const [name, after] of commandsAfter) {
    const grown = measure.growth(commandsBefore.get(name) ?? new Map(), after);
    const total = [...grown.values()].reduce((sum, n) => sum + n, 0);
    commands.push(
      `  ${name}: ${(total / seconds).toFixed(2)} commands/s` +
        (total > 0
          ? ` (${[...grown]
              .sort((a, b) => b[1] - a[1])
              .map(([key, n]) => `${key.trim()} ${(n / seconds).toFixed(2)}`)
              .join(', ')})`
          : ''),
    );
  }
  console.log(`database commands per second with nothing sent:\n${commands.join('\n')}`);
}

/** Broker messages per accepted send over the window, from the management API's counters. */
function printBrokerMessages(before, after, accepted) {
  const per = (a, b, key) => Number((((a?.[key] ?? 0) - (b?.[key] ?? 0)) / accepted).toFixed(2));
  const v = (key) => per(after.vhost, before.vhost, key);
  console.log(
    `\nbroker messages per accepted send: published ${v('publish')}, confirmed ${v('confirm')}, ` +
      `delivered ${v('deliver_get')}, acked ${v('ack')}, redelivered ${v('redeliver')}, ` +
      `unroutable ${v('return_unroutable') + v('drop_unroutable')}`,
  );
  const queues = Object.entries(after.queues)
    .map(([name, stats]) => ({
      queue: name,
      type: stats.type,
      enqueued: per(stats, before.queues[name], 'publish'),
      delivered: per(stats, before.queues[name], 'deliver_get'),
      acked: per(stats, before.queues[name], 'ack'),
      redelivered: per(stats, before.queues[name], 'redeliver'),
    }))
    .filter((row) => row.enqueued > 0 || row.delivered > 0);
  // A server-named queue (a gateway replica's own live-feed queue) under one name.
  console.table(
    queues.map((row) => (row.queue.startsWith('amq.gen-') ? { ...row, queue: 'amq.gen-…' } : row)),
  );
  const enqueued = (type) =>
    queues.filter((row) => row.type === type).reduce((sum, row) => sum + row.enqueued, 0);
  console.log(
    `  enqueued per send: quorum ${enqueued('quorum').toFixed(2)}, classic ${enqueued('classic').toFixed(2)}`,
  );
  console.table(
    Object.entries(after.exchanges)
      .map(([name, stats]) => ({
        exchange: name,
        'published in': per(stats, before.exchanges[name], 'publish_in'),
        'routed out': per(stats, before.exchanges[name], 'publish_out'),
      }))
      .filter((row) => row['published in'] > 0),
  );
}

async function main() {
  const receiver = await startReceiver();
  const env = {
    SEND_RATE_PER_SECOND: SEND_RATE,
    SIM_THROUGHPUT_PER_SECOND: '0',
    SIM_ACCESS_TOKEN: simToken,
    SIM_STATUS_DELAYS_MS: STATUSES ? '100,200,300' : '',
    SIM_PAIR_RATE_LIMIT: 'false',
    // The premium plan's API rate (100 requests/s a token) would cap what is measured here.
    API_RATE_SCALE: '1000',
    ALLOW_PRIVATE_URLS: 'true',
    DB_COMMAND_STATS: '1',
    METRICS_PORT: String(METRICS_PORT),
    ...(CPU_PROF_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF_DIR}` } : {}),
  };
  await withBenchSystem(
    'msg',
    { basePort: BASE_PORT, env, replicas: REPLICAS },
    async ({ system, adminToken, prefix, vhost, rabbitAdmin }) => {
      // The management API's figures lag by its statistics interval (5 s): read after a quiet wait.
      const brokerStats = async () => {
        await sleep(6000);
        return rabbitAdmin.messageStats(vhost);
      };
      const gateway = system.urls.gateway;
      const simulator = system.urls['provider-simulator'];
      const metricsUrls = OUR_SERVICES.map((name) => [
        name,
        name === 'gateway'
          ? `http://127.0.0.1:${METRICS_PORT}/metrics`
          : `${system.urls[name]}/metrics`,
      ]);
      for (const replica of system.replicas()) {
        metricsUrls.push([replica.name, `${replica.url}/metrics`]);
      }
      const created = await post(
        `${gateway}/admin/organizations`,
        { name: 'Bench Co', plan: 'premium' },
        { authorization: `Bearer ${adminToken}` },
      );
      if (created.status !== 201) throw new Error(`create organization: ${created.text}`);
      const { token, channel } = JSON.parse(created.text);
      const hook = await post(`${gateway}/developer/webhooks`, {
        token,
        name: 'Bench receiver',
        url: receiver.url,
        events: ['message_sent', 'message_status_updated'],
      });
      if (hook.status !== 201) throw new Error(`create webhook: ${hook.text}`);
      receiver.trust(JSON.parse(hook.text).webhook.secret);
      const processNames = () => {
        const named = new Map(
          [...OUR_SERVICES, 'provider-simulator'].map((name) => [system.pidOf(name), name]),
        );
        named.set(process.pid, 'benchmark client');
        // A replica is its service's second row: the service's figure is the sum of both.
        for (const replica of system.replicas()) named.set(replica.pid, `${replica.name} (2nd)`);
        return named;
      };
      if (IDLE_SECONDS > 0) await measureIdle('right after start', processNames(), metricsUrls);
      const send = (label) => (i) =>
        post(`${gateway}/api/svc/sendMessageToPhoneNumber`, {
          token,
          phone: phoneOf(i),
          message: `${label} ${i}`,
        });

      const mode = RATE > 0 ? `paced at ${RATE}/s` : `${CONCURRENCY} in flight`;
      console.log(
        `\n${SENDS} sends, ${mode}, ${PHONES} recipients, statuses ${STATUSES ? 'on' : 'off'}:`,
      );
      // The baseline's sends are not messaging's: no status webhooks for them, so that they do not
      // reach messaging as statuses of unknown messages while the service run goes.
      if (STATUSES) {
        await post(`${simulator}/sim/faults`, {
          phone_number_id: channel.phone_number_id,
          statuses: [],
        });
      }
      const baseline = await load(
        'baseline: straight at the simulator',
        SENDS,
        (i) =>
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
        RATE,
      );
      if (STATUSES) await http.del(`${simulator}/sim/faults`);

      // Warm-up: contacts for every phone, JIT, connection pools; its events drain before the run.
      // Closed loop at CONCURRENCY even when paced: a warm-up is not a measurement. Right before
      // the run (after the baseline), so that the contacts it leaves in messaging's cache are
      // seconds old when the run starts, not about to expire: after a 30 s baseline they expired
      // in the run's first seconds, and every recipient's next send waited for contacts at once.
      // With more recipients than sends (PHONES > SENDS) every measured send is a number's first:
      // the warm-up then sends 200 to numbers past the measured ones instead of to each of them.
      const freshRun = PHONES > SENDS;
      const warmSend = send('warm-up');
      await loadWith(
        'warm-up (not counted)',
        freshRun ? Math.min(200, PHONES - SENDS) : Math.min(PHONES, SENDS),
        CONCURRENCY,
        freshRun ? (i) => warmSend(SENDS + i) : warmSend,
      );
      await drain(receiver, { quietMs: 3000, timeoutMs: DRAIN_TIMEOUT_MS });

      // The measured window: from the first send to the last webhook event it caused.
      receiver.reset();
      const brokerBefore = await brokerStats();
      const named = processNames();
      const loadBefore = os.loadavg()[0];
      const commandsBefore = await dbCommands(metricsUrls);
      const rowsBefore = await dbCommands(metricsUrls, ROWS_METRIC);
      const cpuBefore = measure.snapshotCpu();
      const windowStart = Date.now();
      const windowStartUs = process.hrtime.bigint() / 1000n;
      const service = await load(
        'service: gateway → messaging → simulator',
        SENDS,
        send('bench'),
        RATE,
      );
      const answeredAt = Date.now();
      // Per send: message_sent, and message_status_updated for sent (on the provider's acceptance)
      // plus delivered and read when the simulator posts statuses.
      const expected = service.accepted * (STATUSES ? 4 : 2);
      const drained = await drain(receiver, {
        quietMs: 15_000,
        timeoutMs: DRAIN_TIMEOUT_MS,
        expected,
      });
      const lastEvent = drained.at;
      // The run's writes end after its last event: the outbox relay's clears of the last events
      // (which may wait for a write to carry them). Its commands, rows and CPU are counted up to
      // the last of those writes.
      const settled = await settleWrites(metricsUrls, drained.cpu);
      const cpuAfter = settled.cpu;
      if (CPU_PROF_DIR) {
        // The measured window on the profiles' clock (microseconds, monotonic), so that a
        // profile's samples can be read for the run alone (scripts/cpu-profile-summary.js --window).
        const window = {
          startUs: Number(windowStartUs),
          endUs: Number(windowStartUs) + (lastEvent - windowStart) * 1000,
          sends: service.accepted,
        };
        require('node:fs').writeFileSync(
          path.join(CPU_PROF_DIR, 'window.json'),
          JSON.stringify(window),
        );
      }
      const commandsAfter = await dbCommands(metricsUrls);
      const rowsAfter = await dbCommands(metricsUrls, ROWS_METRIC);
      const loadAfter = os.loadavg()[0];
      const brokerAfter = await brokerStats();

      console.log(
        `\nsendMessageToPhoneNumber, ${SENDS} sends, ${mode}, SEND_RATE_PER_SECOND=${SEND_RATE}, ` +
          `messaging ×${REPLICAS.messaging}, webhooks ×${REPLICAS.webhooks}, ` +
          `statuses ${STATUSES ? 'on' : 'off'}, webhook receiver on message_sent + message_status_updated`,
      );
      console.table([baseline, service]);

      const events = receiver.counts();
      console.log(
        `webhook events received and verified: ${[...events].map(([e, n]) => `${e} ${n}`).join(', ') || 'none'}` +
          ` (${(receiver.total() / Math.max(1, service.accepted)).toFixed(2)} per accepted send,` +
          ` ${receiver.badSignatures()} bad signatures,` +
          ` ${Math.max(0, expected - receiver.total())} of ${expected} expected missing); last one ` +
          `${((lastEvent - answeredAt) / 1000).toFixed(1)} s after the last answer; ` +
          `window ${((lastEvent - windowStart) / 1000).toFixed(1)} s`,
      );

      const perService = [];
      const allCommands = new Map();
      for (const name of OUR_SERVICES) {
        const grown = measure.growth(commandsBefore.get(name), commandsAfter.get(name));
        const total = [...grown.values()].reduce((sum, n) => sum + n, 0);
        for (const [key, n] of grown) {
          const command = key.split(' ')[0];
          allCommands.set(command, (allCommands.get(command) ?? 0) + n);
        }
        perService.push({
          service: name,
          'commands per send': Number((total / service.accepted).toFixed(2)),
          // What they are: command and collection, the largest first.
          detail: [...grown]
            .filter(([, n]) => n / service.accepted >= 0.01)
            .sort((a, b) => b[1] - a[1])
            .map(([key, n]) => `${key.trim()} ${(n / service.accepted).toFixed(2)}`)
            .join(', '),
        });
      }
      const commandTotal = [...allCommands.values()].reduce((sum, n) => sum + n, 0);
      console.log(
        `\ndatabase commands per accepted send: ${(commandTotal / service.accepted).toFixed(1)} (` +
          [...allCommands]
            .sort((a, b) => b[1] - a[1])
            .map(([command, n]) => `${command} ${(n / service.accepted).toFixed(2)}`)
            .join(', ') +
          ')',
      );
      console.table(
        perService.map((row) => ({
          service: row.service,
          'commands per send': row['commands per send'],
        })),
      );
      for (const { service: name, detail } of perService) {
        if (detail) console.log(`  ${name}: ${detail}`);
      }
      // Documents the write commands named (a bulk write is one command, many rows).
      const rowLines = [];
      for (const name of OUR_SERVICES) {
        const grown = measure.growth(rowsBefore.get(name), rowsAfter.get(name));
        const detail = [...grown]
          .filter(([, n]) => n / service.accepted >= 0.01)
          .sort((a, b) => b[1] - a[1])
          .map(([key, n]) => `${key.trim()} ${(n / service.accepted).toFixed(2)}`);
        if (detail.length > 0) rowLines.push(`  ${name}: ${detail.join(', ')}`);
      }
      console.log(`\ndocuments written per accepted send:\n${rowLines.join('\n')}`);

      const { groups, others } = measure.cpuBetween(cpuBefore, cpuAfter, named);
      const ourGroups = [
        ...OUR_SERVICES,
        ...system.replicas().map((replica) => `${replica.name} (2nd)`),
      ];
      const cpu = measure.cpuPerSend(groups, [...new Set(ourGroups)], service.accepted);
      console.log(`\n${measure.cpuLine(cpu)}`);
      console.log(
        `  (${service.accepted} accepted sends; total = our services + docdb + PostgreSQL + ` +
          'RabbitMQ, whole-server figures for the shared three; load average ' +
          `${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after)`,
      );
      console.table(
        cpu.byProcess.map((row) => ({
          ...row,
          'ms per send': Number(row['ms per send'].toFixed(2)),
        })),
      );
      if (others.length > 0) {
        console.log(
          '  other processes in the window: ' +
            others
              .slice(0, 5)
              .map(({ pid, comm, cpuMs }) => `${comm}[${pid}] ${Math.round(cpuMs)} ms`)
              .join(', '),
        );
      }

      printBrokerMessages(brokerBefore, brokerAfter, service.accepted);

      if (IDLE_SECONDS > 0) await measureIdle('after the run drained', named, metricsUrls);

      const ceiling = await driverCeiling(`${prefix}ceiling`);
      console.log(
        `\nraw driver ceiling, same database, ${CONCURRENCY} in flight: ` +
          `insertOne ${Math.round(ceiling.insertOne)}/s, updateOne by _id ${Math.round(ceiling.updateOne)}/s, ` +
          `insertMany of 50 ${Math.round(ceiling.insertManyDocs)} docs/s`,
      );
    },
  );
  await receiver.close();
  http.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
