// Campaign throughput: a regular campaign to RECIPIENTS contacts, from the createCampaign call
// until the provider simulator has accepted a message for every recipient, beside the plain send
// rate of sendMessageToPhoneNumber through the gateway measured in the same run; printed as both
// rates and their ratio, then database commands and CPU per send of each phase (every process,
// from /proc) over a window that runs until the statuses the simulator posts are recorded too.
//
//   npx tsc -b && node services/campaigns/bench/campaign-throughput.bench.js [RECIPIENTS]
//
// The plain rate is sustained over as many sends as the campaign has recipients (their statuses
// flowing meanwhile, as the campaign's do), each answered once the provider took it; the rate of
// its first OLD_PLAIN_SENDS (1000), the short burst this benchmark used to time, is printed too.
//
// Env: RECIPIENTS (default 10000), PROVIDER_RATE (messages per second the simulator accepts per
// number and messaging's token bucket is set to; default 1000), PLAIN_SENDS (default RECIPIENTS),
// CONCURRENCY (plain sends in flight, default 32), MESSAGING_REPLICAS and WEBHOOKS_REPLICAS
// (processes of each, default 1), CPU_PROF_DIR (every service runs with --cpu-prof, its profile
// written there at exit), MONGODB_URL, AMQP_URL, BASE_PORT (18180; the gateway's metrics on +20).
const os = require('node:os');
const path = require('node:path');
const scripts = path.join(__dirname, '..', '..', '..', 'scripts');
const { createCaller, load, withBenchSystem } = require(path.join(scripts, 'bench-support'));
const measure = require(path.join(scripts, 'bench-measure'));

const RECIPIENTS = Number(process.argv[2] ?? process.env.RECIPIENTS ?? 10_000);
const PROVIDER_RATE = Number(process.env.PROVIDER_RATE ?? 1000);
const PLAIN_SENDS = Number(process.env.PLAIN_SENDS ?? RECIPIENTS);
const OLD_PLAIN_SENDS = Math.min(1000, PLAIN_SENDS);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const MESSAGING_REPLICAS = Number(process.env.MESSAGING_REPLICAS ?? 1);
const WEBHOOKS_REPLICAS = Number(process.env.WEBHOOKS_REPLICAS ?? 1);
const CPU_PROF_DIR = process.env.CPU_PROF_DIR;
const BASE_PORT = Number(process.env.BASE_PORT ?? 18180);
const METRICS_PORT = BASE_PORT + 20;
const OUR_SERVICES = ['gateway', 'messaging', 'contacts', 'campaigns', 'webhooks', 'inbound'];
const http = createCaller(CONCURRENCY);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every process of ours by pid (replicas under their service's name), and where its metrics are. */
function processesOf(system) {
  const named = new Map(OUR_SERVICES.map((name) => [system.pidOf(name), name]));
  named.set(system.pidOf('provider-simulator'), 'provider-simulator');
  named.set(process.pid, 'benchmark client');
  const metrics = OUR_SERVICES.map((name) => ({
    name,
    url:
      name === 'gateway'
        ? `http://127.0.0.1:${METRICS_PORT}/metrics`
        : `${system.urls[name]}/metrics`,
  }));
  for (const replica of system.replicas()) {
    named.set(replica.pid, replica.name);
    metrics.push({ name: replica.name, url: `${replica.url}/metrics` });
  }
  return { named, metrics };
}

async function dbCommands(metrics) {
  const counts = new Map();
  for (const { name, url } of metrics) {
    const answer = await http.get(url).catch(() => ({ status: 0, text: '' }));
    const grown = measure.counterByLabel(answer.text, 'switchboard_db_commands_total', 'command');
    const total = [...grown.values()].reduce((sum, n) => sum + n, 0);
    counts.set(name, (counts.get(name) ?? 0) + total);
  }
  return counts;
}

/**
 * Waits until our services have gone quiet (under 5 % of a core over three polls of 500 ms:
 * statuses and progress recorded) and answers the CPU snapshot and time of the first quiet poll,
 * so that the quiet wait is not charged to the sends.
 */
async function settle(named, timeoutMs = 120_000) {
  const ours = new Set(OUR_SERVICES);
  const busy = (before, after) => {
    const { groups } = measure.cpuBetween(before, after, named);
    return [...groups].reduce((sum, [name, ms]) => sum + (ours.has(name) ? ms : 0), 0);
  };
  const started = Date.now();
  let previous = measure.snapshotCpu();
  let end = { cpu: previous, at: Date.now() };
  let quiet = 0;
  while (quiet < 3 && Date.now() - started < timeoutMs) {
    await sleep(500);
    const now = measure.snapshotCpu();
    if (busy(previous, now) < 25) {
      quiet += 1;
    } else {
      quiet = 0;
      end = { cpu: now, at: Date.now() };
    }
    previous = now;
  }
  return end;
}

/** The figures of one phase: rows of CPU and database commands per send. */
function phaseFigures(label, sends, cpuBefore, cpuAfter, commandsBefore, commandsAfter, named) {
  const { groups } = measure.cpuBetween(cpuBefore, cpuAfter, named);
  const cpu = measure.cpuPerSend(groups, OUR_SERVICES, sends);
  let commandTotal = 0;
  const commands = {};
  for (const [name, after] of commandsAfter) {
    const grown = after - (commandsBefore.get(name) ?? 0);
    commandTotal += grown;
    commands[name] = grown / sends;
  }
  console.log(`\n${label}: ${measure.cpuLine(cpu)}`);
  console.log(
    `${label}: database commands per send: ${(commandTotal / sends).toFixed(2)} (` +
      Object.entries(commands)
        .map(([name, n]) => `${name} ${n.toFixed(2)}`)
        .join(', ') +
      ')',
  );
  return { cpu, commands: commandTotal / sends, byService: commands };
}

async function main() {
  const replicas = { messaging: MESSAGING_REPLICAS, webhooks: WEBHOOKS_REPLICAS };
  await withBenchSystem(
    'camp',
    {
      basePort: BASE_PORT,
      replicas,
      env: {
        SEND_RATE_PER_SECOND: String(PROVIDER_RATE),
        SIM_THROUGHPUT_PER_SECOND: String(PROVIDER_RATE),
        SIM_STATUS_DELAYS_MS: '500,1000,1500',
        SIM_PAIR_RATE_LIMIT: 'false',
        SCHEDULER_INTERVAL_MS: '1000',
        DB_COMMAND_STATS: '1',
        METRICS_PORT: String(METRICS_PORT),
        ...(CPU_PROF_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF_DIR}` } : {}),
      },
    },
    async ({ system, adminToken, internalSecret, simulator }) => {
      const gateway = system.urls.gateway;
      const { named, metrics } = processesOf(system);
      const created = await http.post(
        `${gateway}/admin/organizations`,
        { name: 'Bench Co', plan: 'premium' },
        { authorization: `Bearer ${adminToken}` },
      );
      if (created.status !== 201) throw new Error(`create organization: ${created.text}`);
      const { token, channel, organization } = JSON.parse(created.text);
      const phone = (i) => String(393_500_000_000 + i);

      console.log(`creating ${RECIPIENTS} contacts…`);
      const made = await load('contacts (not counted)', RECIPIENTS, CONCURRENCY, (i) =>
        http.post(
          `${system.urls.contacts}/internal/contacts/resolve`,
          { company_id: organization.company_id, phone: phone(i) },
          { 'x-internal-secret': internalSecret },
        ),
      );
      if (made.accepted !== RECIPIENTS) throw new Error('not every contact was made');
      const send = (label) => (i) =>
        http.post(`${gateway}/api/svc/sendMessageToPhoneNumber`, {
          token,
          phone: phone(i % RECIPIENTS),
          message: `${label} ${i}`,
        });
      // Warm-up (JIT, pools, caches), its statuses recorded before anything is measured.
      await load('warm-up (not counted)', Math.min(200, PLAIN_SENDS), CONCURRENCY, send('warm'));
      await settle(named);

      const loadAtStart = os.loadavg()[0];
      let commandsBefore = await dbCommands(metrics);
      let cpuBefore = measure.snapshotCpu();
      // The first OLD_PLAIN_SENDS alone first (the burst this benchmark used to time), then the
      // rest; the plain rate is over all of them.
      const burst = await load(
        `plain sends: the first ${OLD_PLAIN_SENDS}`,
        OLD_PLAIN_SENDS,
        CONCURRENCY,
        send('plain'),
      );
      const rest = await load(
        `plain sends: the other ${PLAIN_SENDS - OLD_PLAIN_SENDS}`,
        PLAIN_SENDS - OLD_PLAIN_SENDS,
        CONCURRENCY,
        (i) => send('plain')(OLD_PLAIN_SENDS + i),
      );
      const plainSeconds = burst.seconds + rest.seconds;
      const plain = {
        accepted: burst.accepted + rest.accepted,
        'accepted/s': Math.round((burst.accepted + rest.accepted) / plainSeconds),
      };
      console.log(`  plain sends (${PLAIN_SENDS}): ${plain['accepted/s']}/s`);
      let end = await settle(named);
      const plainFigures = phaseFigures(
        'plain sends',
        plain.accepted,
        cpuBefore,
        end.cpu,
        commandsBefore,
        await dbCommands(metrics),
        named,
      );

      const accepted = async () => {
        const answer = await http.get(
          `${simulator}/sim/sent?phone_number_id=${channel.phone_number_id}&count=true`,
        );
        return JSON.parse(answer.text).count;
      };
      const campaignOf = async (id) => {
        const answer = await http.get(`${gateway}/api/svc/getCampaign?token=${token}&id=${id}`);
        return JSON.parse(answer.text).campaign;
      };
      const before = await accepted();
      commandsBefore = await dbCommands(metrics);
      cpuBefore = measure.snapshotCpu();
      const t0 = Date.now();
      const started = await http.post(`${gateway}/api/svc/createCampaign`, {
        token,
        name: 'Bench campaign',
        type: 'regular',
        message: { type: 'text', text: 'Hello {{1}}' },
        variables: ['contact.phone'],
        audience: { type: 'all' },
        send_now: true,
      });
      if (started.status !== 201) throw new Error(`createCampaign: ${started.text}`);
      const { campaign } = JSON.parse(started.text);
      const startSeconds = (Date.now() - t0) / 1000;
      let reached = 0;
      while (reached < RECIPIENTS) {
        await sleep(500);
        reached = (await accepted()) - before;
        process.stdout.write(`\r  campaign: ${reached}/${RECIPIENTS} at the provider`);
      }
      const sendSeconds = (Date.now() - t0) / 1000;
      let state = await campaignOf(campaign.id);
      while (state.status !== 'completed') {
        await sleep(250);
        state = await campaignOf(campaign.id);
      }
      const completeSeconds = (Date.now() - t0) / 1000;
      while (state.read < RECIPIENTS) {
        await sleep(250);
        state = await campaignOf(campaign.id);
      }
      const readSeconds = (Date.now() - t0) / 1000;
      end = await settle(named);
      const campaignFigures = phaseFigures(
        'campaign',
        RECIPIENTS,
        cpuBefore,
        end.cpu,
        commandsBefore,
        await dbCommands(metrics),
        named,
      );
      const loadAtEnd = os.loadavg()[0];

      const campaignRate = RECIPIENTS / sendSeconds;
      console.log(
        `\n\nregular campaign, ${RECIPIENTS} recipients, provider rate ${PROVIDER_RATE}/s per number, ` +
          `messaging ×${MESSAGING_REPLICAS}, webhooks ×${WEBHOOKS_REPLICAS}, ` +
          `load average ${loadAtStart.toFixed(1)} → ${loadAtEnd.toFixed(1)}:`,
      );
      console.table([
        {
          measure: `plain sends through the gateway, the first ${OLD_PLAIN_SENDS} (msg/s)`,
          value: burst['accepted/s'],
        },
        {
          measure: `plain sends through the gateway, all ${PLAIN_SENDS} (msg/s)`,
          value: plain['accepted/s'],
        },
        {
          measure: 'campaign: recipients/s (createCampaign → all at the provider)',
          value: Number(campaignRate.toFixed(1)),
        },
        {
          measure: `campaign ÷ plain (all ${PLAIN_SENDS})`,
          value: `${Math.round((100 * campaignRate) / plain['accepted/s'])} %`,
        },
        {
          measure: `campaign ÷ plain (the first ${OLD_PLAIN_SENDS}, as this benchmark used to)`,
          value: `${Math.round((100 * campaignRate) / burst['accepted/s'])} %`,
        },
        { measure: 'createCampaign answered after (s)', value: Number(startSeconds.toFixed(2)) },
        { measure: 'all at the provider after (s)', value: Number(sendSeconds.toFixed(1)) },
        { measure: 'campaign_completed after (s)', value: Number(completeSeconds.toFixed(1)) },
        { measure: 'every recipient read after (s)', value: Number(readSeconds.toFixed(1)) },
      ]);
      const rows = new Map();
      for (const [phase, figures] of [
        ['plain ms/send', plainFigures],
        ['campaign ms/send', campaignFigures],
      ]) {
        for (const row of figures.cpu.byProcess) {
          const entry = rows.get(row.process) ?? { process: row.process };
          entry[phase] = Number(row['ms per send'].toFixed(2));
          rows.set(row.process, entry);
        }
      }
      console.log(
        `cpu per send: plain ${plainFigures.cpu.total.toFixed(1)} ms total, ` +
          `${plainFigures.cpu.ours.toFixed(1)} ms ours; campaign ${campaignFigures.cpu.total.toFixed(1)} ms total, ` +
          `${campaignFigures.cpu.ours.toFixed(1)} ms ours (window to the last status recorded)`,
      );
      console.table([...rows.values()]);
      console.log(
        `database commands per send: plain ${plainFigures.commands.toFixed(2)}, ` +
          `campaign ${campaignFigures.commands.toFixed(2)}`,
      );
      console.table(
        [...new Set([...Object.keys(plainFigures.byService)])].map((name) => ({
          service: name,
          plain: Number(plainFigures.byService[name].toFixed(2)),
          campaign: Number((campaignFigures.byService[name] ?? 0).toFixed(2)),
        })),
      );
    },
  );
  http.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
