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
const path = require('node:path');
const { createCaller, load: loadWith, withBenchSystem } = require(
  path.join(__dirname, '..', '..', '..', 'scripts', 'bench-support'),
);

const SENDS = Number(process.argv[2] ?? process.env.SENDS ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const PHONES = Number(process.env.PHONES ?? 200);
const SEND_RATE = process.env.SEND_RATE_PER_SECOND ?? '100000';
const STATUS_WEBHOOKS = process.env.STATUS_WEBHOOKS === '1';
const BASE_PORT = Number(process.env.BASE_PORT ?? 18080);
const simToken = `bench-${process.pid}`;
const http = createCaller(CONCURRENCY);
const post = http.post;
const load = (label, count, call) => loadWith(label, count, CONCURRENCY, call);

const phoneOf = (index) => String(393_400_000_000 + (index % PHONES));

async function main() {
  const env = {
    SEND_RATE_PER_SECOND: SEND_RATE,
    SIM_THROUGHPUT_PER_SECOND: '0',
    SIM_ACCESS_TOKEN: simToken,
    SIM_STATUS_DELAYS_MS: STATUS_WEBHOOKS ? '100,200,300' : '',
    SIM_PAIR_RATE_LIMIT: 'false',
  };
  await withBenchSystem('msg', { basePort: BASE_PORT, env }, async ({ system, adminToken }) => {
    const gateway = system.urls.gateway;
    const simulator = system.urls['provider-simulator'];
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
    if (STATUS_WEBHOOKS) await http.del(`${simulator}/sim/faults`);
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
  });
  http.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
