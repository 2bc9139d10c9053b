import { setTimeout as sleep } from 'node:timers/promises';
import {
  brokerEvent,
  createWebhook,
  logsOf,
  newCompanyId,
  startHarness,
  waitFor,
  type Harness,
} from '../support/harness';
import { startReceiver, type Behaviour, type Receiver } from '../support/receiver';

jest.setTimeout(60_000);

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((receiver) => receiver.close())));

async function receiver(behaviour?: Behaviour) {
  const started = await startReceiver(behaviour);
  receivers.push(started);
  return started;
}

describe('one bad endpoint does not delay the others', () => {
  let harness: Harness;
  beforeAll(async () => {
    // Small prefetch windows (events carry their first attempts, retries come as deliveries),
    // so that a hanging endpoint could fill them if nothing stopped it. The timeout is far
    // longer than the test waits: a healthy delivery that had to wait for a hanging attempt to
    // time out would never arrive in time.
    harness = await startHarness('wh_isolation', {
      WEBHOOK_EVENT_PREFETCH: '20',
      WEBHOOK_DELIVERY_PREFETCH: '20',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      WEBHOOK_TIMEOUT_MS: '40000',
      WEBHOOK_RETRY_DELAYS: '0.5,1,1',
    });
  });
  afterAll(() => harness?.stop());

  test('when one endpoint hangs and another refuses connections, then a healthy one gets every delivery while the hanging requests are still open, and the hanging one never holds more than its limit', async () => {
    const companyId = newCompanyId();
    const hanging = await receiver(() => ({ hang: true }));
    const healthy = await receiver();
    for (const endpoint of [hanging, healthy]) {
      const { secret } = await createWebhook(harness, companyId, {
        url: endpoint.url,
        events: ['message_sent'],
      });
      endpoint.trust(secret);
    }
    await createWebhook(harness, companyId, {
      url: 'http://127.0.0.1:1/refused',
      events: ['message_sent'],
    });

    for (let i = 0; i < 40; i++) {
      await harness.publish(brokerEvent('message_sent', companyId));
      await sleep(40);
    }

    await waitFor(() => healthy.requests.length === 40, 30_000, 'all healthy deliveries');
    // Nothing sent to the hanging endpoint has been answered or timed out yet, so every request
    // it got is still open: never more than its concurrency limit.
    expect(hanging.requests.length).toBeGreaterThan(0);
    expect(hanging.requests.length).toBeLessThanOrEqual(4);
    // Let the hanging attempts end (as connection failures) so the service stops promptly.
    await hanging.close();
  });
});

describe('per-endpoint breaker', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness('wh_breaker', {
      WEBHOOK_BREAKER_VOLUME: '2',
      WEBHOOK_BREAKER_ERROR_PERCENT: '50',
      WEBHOOK_BREAKER_RESET_MS: '2000',
      WEBHOOK_RETRY_DELAYS: '0.3,0.6,0.9',
    });
  });
  afterAll(() => harness?.stop());

  test('when the breaker is open, then attempts are postponed without being spent and go out once it closes', async () => {
    const companyId = newCompanyId();
    let healthy = false;
    const endpoint = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
    const webhook = await createWebhook(harness, companyId, {
      url: endpoint.url,
      events: ['message_sent'],
    });
    endpoint.trust(webhook.secret);

    const first = [brokerEvent('message_sent', companyId), brokerEvent('message_sent', companyId)];
    for (const event of first) await harness.publish(event);
    await waitFor(() => endpoint.requests.length === 2, 5_000);
    healthy = true;
    const opened = Date.now();

    const later = Array.from({ length: 4 }, () => brokerEvent('message_sent', companyId));
    for (const event of later) await harness.publish(event);

    // The two retries and the four later events: eight requests in all, none while the breaker
    // was open (2 s, longer than the whole 0.3 + 0.6 s schedule).
    await waitFor(
      () => endpoint.requests.length >= 8,
      15_000,
      'deliveries after the breaker closes',
    );
    for (const request of endpoint.requests.slice(2)) {
      expect(request.at - opened).toBeGreaterThanOrEqual(1_900);
    }
    const logs = await waitFor(async () => {
      const rows = await logsOf(harness, companyId, webhook.id);
      return rows.length === 8 && rows;
    });
    const byEvent = (id: string) => logs.filter((row) => row.event_id === id);
    for (const event of later) {
      expect(byEvent(event.id).map((row) => `${row.attempt} ${row.state}`)).toEqual([
        '1 / 3 succeeded',
      ]);
    }
    for (const event of first) {
      expect(byEvent(event.id).map((row) => `${row.attempt} ${row.state}`)).toEqual([
        '2 / 3 succeeded',
        '1 / 3 retrying',
      ]);
    }
  });
});
