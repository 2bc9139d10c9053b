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

describe("one channel's calls in progress are bounded (issue 15 point 1)", () => {
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
    const refused = await Promise.race([
      Promise.all(hanging.slice(LIMIT)),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('no refusal before the provider answered')), 3_000),
      ),
    ]);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body).toMatchObject({ status: 'error', code: 'rate_limited' });
      expect(answer.body.message).toContain('in progress');
    }

    const beside = await send(healthy);
    expect(beside.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(4_000);

    const held = await Promise.all(hanging.slice(0, LIMIT));
    expect(held.map((answer) => answer.status)).toEqual(Array(LIMIT).fill(200));
    await system.sim('DELETE', '/faults');
    expect((await send(slow)).status).toBe(200);
  });
});
