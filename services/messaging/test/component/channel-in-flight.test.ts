import {
  startMessagingSystem,
  uniquePhone,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(60_000);

const LIMIT = 3;
let system: MessagingSystem;
let slow: Organization;
let healthy: Organization;

beforeAll(async () => {
  system = await startMessagingSystem('msginflight', {
    messagingEnv: {
      PROVIDER_MAX_IN_FLIGHT_PER_CHANNEL: String(LIMIT),
      // Sends over the limit are refused after their retries: keep those short.
      SEND_RETRY_BUDGET_MS: '300',
    },
  });
  slow = await system.newOrganization('standard', 'Hanging Provider Co');
  healthy = await system.newOrganization('standard', 'Healthy Co');
});

afterAll(async () => {
  await system?.stop();
});

describe("one channel's calls in progress are bounded", () => {
  const send = (org: Organization) =>
    org.api.post('sendMessageToPhoneNumber', { phone: uniquePhone(), message: 'Hi' });

  test("when an organization's provider hangs, then its sends beyond the channel's limit are refused 429 at once and another organization's sends go through meanwhile", async () => {
    // A first send each, so that concurrent sends find the month's quota counter made.
    expect((await send(slow)).status).toBe(200);
    expect((await send(healthy)).status).toBe(200);
    await system.sim('POST', '/faults', {
      phone_number_id: slow.created.channel.phone_number_id,
      latency_ms: 4_000,
    });
    const started = Date.now();
    const hanging = Array.from({ length: LIMIT + 3 }, () => send(slow));
    // Which sends take the channel's places depends on arrival order, not on array order:
    // the first three answers to come back are the refusals.
    const answered: Awaited<(typeof hanging)[number]>[] = [];
    hanging.forEach((pending) => void pending.then((answer) => answered.push(answer)));
    const refused = await new Promise<typeof answered>((resolve, reject) => {
      const deadline = setTimeout(() => {
        clearInterval(poll);
        reject(new Error(`${answered.length} answers before the provider answered, wanted 3`));
      }, 3_000);
      const poll = setInterval(() => {
        if (answered.length < 3) return;
        clearInterval(poll);
        clearTimeout(deadline);
        resolve(answered.slice(0, 3));
      }, 10);
    });
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body).toMatchObject({ status: 'error', code: 'rate_limited' });
      expect(answer.body.message).toContain('in progress');
    }

    const beside = await send(healthy);
    expect(beside.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(4_000);

    const all = await Promise.all(hanging);
    const held = all.filter((answer) => !refused.includes(answer));
    expect(held.map((answer) => answer.status)).toEqual(Array(LIMIT).fill(200));
    await system.sim('DELETE', '/faults');
    expect((await send(slow)).status).toBe(200);
  });
});
