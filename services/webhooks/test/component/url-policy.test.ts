import {
  brokerEvent,
  createWebhook,
  logsOf,
  newCompanyId,
  startHarness,
  waitFor,
  type Harness,
} from '../support/harness';
import { startReceiver, type Receiver } from '../support/receiver';

jest.setTimeout(30_000);

let harness: Harness;
let endpoint: Receiver;

beforeAll(async () => {
  harness = await startHarness('wh_ssrf', { ALLOW_PRIVATE_URLS: 'false' });
  endpoint = await startReceiver();
});

afterAll(async () => {
  await endpoint?.close();
  await harness?.stop();
});

describe('private addresses are refused unless ALLOW_PRIVATE_URLS is on', () => {
  test.each([
    ['plain http', 'http://hooks.example.com/in', 'https://'],
    ['the loopback by name', 'https://localhost:8443/in', 'private'],
    ['the loopback by address', 'https://127.0.0.1/in', 'private'],
    ['the loopback as a decimal number', 'https://2130706433/in', 'private'],
    ['IPv6 loopback', 'https://[::1]/in', 'private'],
    ['an IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in', 'private'],
    ['a private network', 'https://10.1.2.3/in', 'private'],
    ['the cloud metadata address', 'https://169.254.169.254/latest', 'private'],
    ['a host that does not resolve', 'https://no-such-host.invalid/in', 'resolved'],
  ])('when the url is %s, then saving it answers 422', async (_case, url, named) => {
    const companyId = newCompanyId();
    const answer = await harness.api(companyId, '/developer/webhooks', {
      method: 'POST',
      body: { name: 'Bad', url, events: ['message_sent'] },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toMatch(/^url: /);
    expect(answer.body.message).toContain(named);
  });

  test('when a url is changed to a private one, then the update answers 422', async () => {
    const companyId = newCompanyId();
    const { id } = await createWebhook(harness, companyId, {
      url: 'https://93.184.215.14/in',
      events: ['message_sent'],
    });
    const answer = await harness.api(companyId, `/developer/webhooks/${id}`, {
      method: 'PUT',
      body: { url: 'https://192.168.1.10/in' },
    });
    expect(answer.status).toBe(422);
  });

  test.each([
    ['a name that now resolves to the loopback', (port: number) => `https://localhost:${port}/in`],
    ['a private address literal', (port: number) => `https://127.0.0.1:${port}/in`],
  ])(
    'when a saved url points at %s by the time of delivery, then the connection is refused and the delivery fails',
    async (_case, url) => {
      const companyId = newCompanyId();
      const { id } = await createWebhook(harness, companyId, {
        url: 'https://93.184.215.14/in',
        events: ['message_sent'],
      });
      // As if DNS changed after the check on save (rebinding): the stored url is private now.
      const port = Number(new URL(endpoint.url).port);
      await harness.service.db
        .collection('webhooks')
        .updateOne({ _id: id as never }, { $set: { url: url(port) } });

      await harness.publish(brokerEvent('message_sent', companyId));

      const logs = await waitFor(async () => {
        const rows = await logsOf(harness, companyId, id);
        return rows.length === 1 && rows;
      });
      expect(logs[0]).toMatchObject({ state: 'failed', response_status: null });
      expect(logs[0]!.error).toMatch(/may not call/);
      expect(endpoint.requests).toHaveLength(0);
    },
  );
});
