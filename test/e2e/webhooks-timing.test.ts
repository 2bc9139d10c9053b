// Outbound webhook retries at real speed (the published delivery rules): attempts 2 and 3 start 10 s and 30 s after
// the previous failure, ±2 s. Every service runs as its own process; about 45 s.
import { randomUUID } from 'node:crypto';
import { connect } from 'amqplib';
import {
  BrokerEventSchema,
  DeliveryLogListResponseSchema,
  EXCHANGES,
  WebhookResponseSchema,
} from '@switchboard/contracts';
import { startE2eSystem, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver(() => ({ status: 503, body: 'down for maintenance' }));
  // The receiver is a local http server; the schedule and timeout are the spec's defaults.
  e2e = await startE2eSystem('e2ewhtiming', { ALLOW_PRIVATE_URLS: 'true' });
});

afterAll(async () => {
  await e2e?.stop();
  await receiver?.close();
});

async function gatewayCall(path: string, init: { method?: string; body?: object } = {}) {
  const response = await fetch(`${e2e.gateway}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json' },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: response.status, body: await jsonBody(response) };
}

test('when a receiver keeps failing, then attempts 2 and 3 start 10 s and 30 s after the previous failure, and the third is the last', async () => {
  const { token, organization } = await e2e.createOrganization('Timing Co', 'standard');
  const hook = await gatewayCall('/developer/webhooks', {
    method: 'POST',
    body: { token, name: 'Failing', url: receiver.url, events: ['account_status_updated'] },
  });
  const { webhook } = WebhookResponseSchema.parse(hook.body);
  receiver.trust(webhook.secret);

  const event = BrokerEventSchema.parse({
    id: randomUUID(),
    event: 'account_status_updated',
    timestamp: new Date().toISOString(),
    company_id: organization.company_id,
    data: { decision: 'APPROVED', account_status: 'active', company_id: organization.company_id },
  });
  const connection = await connect(e2e.amqpUrl);
  const channel = await connection.createConfirmChannel();
  channel.publish(EXCHANGES.events, event.event, Buffer.from(JSON.stringify(event)), {
    persistent: true,
    messageId: event.id,
  });
  await channel.waitForConfirms();
  await connection.close();

  const deadline = Date.now() + 60_000;
  while (receiver.requests.length < 3 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(receiver.requests).toHaveLength(3);
  const [first, second, third] = receiver.requests.map((request) => request.at);
  expect(Math.abs(second! - first! - 10_000)).toBeLessThanOrEqual(2_000);
  expect(Math.abs(third! - second! - 30_000)).toBeLessThanOrEqual(2_000);
  expect(new Set(receiver.requests.map((request) => request.headers['x-webhook-id']))).toEqual(
    new Set([event.id]),
  );

  const logs = await gatewayCall(`/developer/webhooks/${webhook.id}/logs?token=${token}`);
  const { logs: rows } = DeliveryLogListResponseSchema.parse(logs.body);
  expect(rows.map((row) => `${row.attempt} ${row.state} ${row.response_status}`)).toEqual([
    '3 / 3 failed 503',
    '2 / 3 retrying 503',
    '1 / 3 retrying 503',
  ]);
  expect(rows[2]!.response_body).toBe('down for maintenance');
});
