// Campaign throughput: a regular campaign to RECIPIENTS contacts, from the
// createCampaign call until the provider simulator has accepted a message for every recipient,
// printed as recipients per second beside the configured provider rate and, from the same run,
// the plain send rate of sendMessageToPhoneNumber through the gateway.
//
//   npx tsc -b && node services/campaigns/bench/campaign-throughput.bench.js [RECIPIENTS]
//
// Env: RECIPIENTS (default 10000), PROVIDER_RATE (messages per second the simulator accepts per
// number and messaging's token bucket is set to; default 1000), PLAIN_SENDS (default 1000),
// CONCURRENCY (plain sends in flight, default 32), MONGODB_URL, AMQP_URL, BASE_PORT (18180).
const path = require('node:path');
const { createCaller, load, withBenchSystem } = require(
  path.join(__dirname, '..', '..', '..', 'scripts', 'bench-support'),
);

const RECIPIENTS = Number(process.argv[2] ?? process.env.RECIPIENTS ?? 10_000);
const PROVIDER_RATE = Number(process.env.PROVIDER_RATE ?? 1000);
const PLAIN_SENDS = Number(process.env.PLAIN_SENDS ?? 1000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const BASE_PORT = Number(process.env.BASE_PORT ?? 18180);
const http = createCaller(CONCURRENCY);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  await withBenchSystem(
    'camp',
    {
      basePort: BASE_PORT,
      env: {
        SEND_RATE_PER_SECOND: String(PROVIDER_RATE),
        SIM_THROUGHPUT_PER_SECOND: String(PROVIDER_RATE),
        SIM_STATUS_DELAYS_MS: '500,1000,1500',
        SIM_PAIR_RATE_LIMIT: 'false',
        SCHEDULER_INTERVAL_MS: '1000',
      },
    },
    async ({ system, adminToken, internalSecret, simulator }) => {
      const gateway = system.urls.gateway;
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

      const plain = await load(
        `plain sends: sendMessageToPhoneNumber (${PLAIN_SENDS})`,
        PLAIN_SENDS,
        CONCURRENCY,
        (i) =>
          http.post(`${gateway}/api/svc/sendMessageToPhoneNumber`, {
            token,
            phone: phone(i % RECIPIENTS),
            message: `plain ${i}`,
          }),
      );

      const accepted = async () => {
        const answer = await http.get(
          `${simulator}/sim/sent?phone_number_id=${channel.phone_number_id}`,
        );
        return JSON.parse(answer.text).sent.length;
      };
      const before = await accepted();
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
        await sleep(1000);
        reached = (await accepted()) - before;
        process.stdout.write(`\r  campaign: ${reached}/${RECIPIENTS} at the provider`);
      }
      const sendSeconds = (Date.now() - t0) / 1000;
      let status = '';
      while (status !== 'completed') {
        const answer = await http.get(
          `${gateway}/api/svc/getCampaign?token=${token}&id=${campaign.id}`,
        );
        status = JSON.parse(answer.text).campaign.status;
        if (status !== 'completed') await sleep(1000);
      }
      const completeSeconds = (Date.now() - t0) / 1000;
      console.log(
        `\n\nregular campaign, ${RECIPIENTS} recipients, provider rate ${PROVIDER_RATE}/s per number:`,
      );
      console.table([
        { measure: 'configured provider rate (msg/s)', value: PROVIDER_RATE },
        { measure: 'plain sends through the gateway (msg/s)', value: plain['accepted/s'] },
        {
          measure: 'campaign: recipients/s (createCampaign → all at the provider)',
          value: Math.round(RECIPIENTS / sendSeconds),
        },
        { measure: 'createCampaign answered after (s)', value: Number(startSeconds.toFixed(2)) },
        { measure: 'all at the provider after (s)', value: Number(sendSeconds.toFixed(1)) },
        { measure: 'campaign completed after (s)', value: Number(completeSeconds.toFixed(1)) },
      ]);
    },
  );
  http.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
