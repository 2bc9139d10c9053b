import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestWebhookResponseSchema, WebhookEnvelopeSchema } from '@switchboard/contracts';
import {
  brokerEvent,
  createWebhook,
  logsOf,
  newCompanyId,
  startHarness,
  waitFor,
  type Harness,
} from '../support/harness';
import {
  signatureMatches,
  startReceiver,
  type Behaviour,
  type Receiver,
} from '../support/receiver';

jest.setTimeout(30_000);

let harness: Harness;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // Long enough between attempts to act on a webhook while a retry waits.
  harness = await startHarness('wh_lifecycle', { WEBHOOK_RETRY_DELAYS: '1,1,1' });
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await harness?.stop();
});

async function subscribed(behaviour?: Behaviour) {
  const companyId = newCompanyId();
  const endpoint = await startReceiver(behaviour);
  receivers.push(endpoint);
  const webhook = await createWebhook(harness, companyId, {
    url: endpoint.url,
    events: ['message_sent', 'campaign_started'],
  });
  endpoint.trust(webhook.secret);
  return { companyId, endpoint, webhook };
}

const toggle = (companyId: number, id: number) =>
  harness.api(companyId, `/developer/webhooks/${id}/toggle`, { method: 'POST' });

describe('pausing, deleting and rotating', () => {
  test('when a webhook is paused, then its pending retry stops (logged), events meanwhile are not queued, and after activation new events arrive', async () => {
    const { companyId, endpoint, webhook } = await subscribed((_request, index) =>
      index === 0 ? { status: 500 } : { status: 200 },
    );
    await harness.publish(brokerEvent('message_sent', companyId));
    await waitFor(() => endpoint.requests.length === 1);

    const paused = await toggle(companyId, webhook.id);
    expect(paused.body.webhook.active).toBe(false);
    const whilePaused = brokerEvent('message_sent', companyId);
    await harness.publish(whilePaused);

    const logs = await waitFor(async () => {
      const rows = await logsOf(harness, companyId, webhook.id);
      return rows.length === 2 && rows;
    }, 5_000);
    expect(logs[0]).toMatchObject({ state: 'failed', attempt: '2 / 3', response_status: null });
    expect(logs[0]!.error).toContain('paused');
    expect(endpoint.requests).toHaveLength(1);

    const activated = await toggle(companyId, webhook.id);
    expect(activated.body.webhook.active).toBe(true);
    const afterwards = brokerEvent('message_sent', companyId);
    await harness.publish(afterwards);
    await waitFor(() => endpoint.requests.length === 2);
    await sleep(1_500);
    expect(endpoint.requests.map((request) => request.headers['x-webhook-id'])).toEqual([
      expect.any(String),
      afterwards.id,
    ]);
  });

  test('when a webhook is deleted while a retry waits, then nothing more is sent and its logs are gone', async () => {
    const { companyId, endpoint, webhook } = await subscribed(() => ({ status: 502 }));
    await harness.publish(brokerEvent('message_sent', companyId));
    await waitFor(() => endpoint.requests.length === 1);

    const deleted = await harness.api(companyId, `/developer/webhooks/${webhook.id}`, {
      method: 'DELETE',
    });
    expect(deleted.body).toEqual({ status: 'success', id: webhook.id, deleted: true });
    await sleep(2_500);
    expect(endpoint.requests).toHaveLength(1);
    expect((await harness.api(companyId, `/developer/webhooks/${webhook.id}/logs`)).status).toBe(
      404,
    );
    expect(
      await harness.service.db
        .collection('delivery_logs')
        .countDocuments({ webhook_id: webhook.id }),
    ).toBe(0);
    expect(
      await harness.service.db.collection('deliveries').countDocuments({ webhook_id: webhook.id }),
    ).toBe(0);
    // Its organization's only webhook: the payloads made for it alone went with it.
    expect(
      await harness.service.db
        .collection('event_payloads')
        .countDocuments({ company_id: companyId }),
    ).toBe(0);
  });

  test('when one of two webhooks that received an event is deleted, then the other still shows the payload in its logs and can redeliver it', async () => {
    const { companyId, endpoint, webhook } = await subscribed();
    const other = await startReceiver();
    receivers.push(other);
    const kept = await createWebhook(harness, companyId, {
      url: other.url,
      events: ['message_sent'],
    });
    other.trust(kept.secret);
    const event = brokerEvent('message_sent', companyId);
    await harness.publish(event);
    await waitFor(() => endpoint.requests.length === 1 && other.requests.length === 1);
    await waitFor(async () => (await logsOf(harness, companyId, kept.id)).length === 1);

    const deleted = await harness.api(companyId, `/developer/webhooks/${webhook.id}`, {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(200);

    const [log] = await logsOf(harness, companyId, kept.id);
    expect(log!.payload).toEqual(JSON.parse(other.requests[0]!.body.toString('utf8')));
    const redelivered = await harness.api(
      companyId,
      `/developer/webhooks/${kept.id}/logs/${String(log!.id)}/redeliver`,
      { method: 'POST' },
    );
    expect(redelivered.status).toBe(202);
    await waitFor(() => other.requests.length === 2);
    expect(other.requests[1]!.body.equals(other.requests[0]!.body)).toBe(true);
    expect(other.requests[1]!.headers['x-webhook-id']).toBe(event.id);
  });

  test('when the secret is rotated, then later deliveries are signed with the new one only', async () => {
    const { companyId, endpoint, webhook } = await subscribed();
    const rotated = await harness.api(
      companyId,
      `/developer/webhooks/${webhook.id}/rotate-secret`,
      {
        method: 'POST',
      },
    );
    const secret = rotated.body.webhook.secret as string;
    expect(secret).not.toBe(webhook.secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    endpoint.trust(secret);

    await harness.publish(brokerEvent('message_sent', companyId));
    const request = await waitFor(() => endpoint.requests[0]);
    const given = request.headers['x-webhook-signature'] as string;
    expect(signatureMatches(secret, request.body, given)).toBe(true);
    expect(signatureMatches(webhook.secret, request.body, given)).toBe(false);
  });
});

describe('test events and redelivery', () => {
  test('when a test is sent, then a schema-valid sample of a subscribed event is delivered, logged and answered', async () => {
    const { companyId, endpoint, webhook } = await subscribed(() => ({
      status: 202,
      body: 'thanks',
    }));
    const answer = await harness.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
      method: 'POST',
      body: { event: 'campaign_started' },
    });

    expect(answer.status).toBe(200);
    const { log } = TestWebhookResponseSchema.parse(answer.body);
    expect(log).toMatchObject({
      event: 'campaign_started',
      state: 'succeeded',
      attempt: '1 / 3',
      response_status: 202,
      response_body: 'thanks',
      error: null,
    });
    const received = WebhookEnvelopeSchema.parse(JSON.parse(endpoint.requests[0]!.body.toString()));
    expect(received.event).toBe('campaign_started');
    expect(log.payload).toEqual(received);
    expect(endpoint.requests[0]!.verified).toBe(true);
    expect((await logsOf(harness, companyId, webhook.id))[0]!.id).toBe(log.id);
  });

  test('when a test is sent without an event, then the first subscribed event is used; an unsubscribed one is refused', async () => {
    const { companyId, endpoint, webhook } = await subscribed();
    const answer = await harness.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
      method: 'POST',
    });
    expect(answer.body.log.event).toBe('message_sent');
    expect(endpoint.requests[0]!.headers['x-webhook-event']).toBe('message_sent');

    const refused = await harness.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
      method: 'POST',
      body: { event: 'message_failed' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('message_failed');
  });

  test('when a test fails with a 5xx, then it answers the failed attempt and retries it like any delivery', async () => {
    const { companyId, endpoint, webhook } = await subscribed((_request, index) =>
      index === 0 ? { status: 500 } : { status: 200 },
    );
    const answer = await harness.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
      method: 'POST',
    });
    expect(answer.body.log).toMatchObject({ state: 'retrying', response_status: 500 });
    await waitFor(() => endpoint.requests.length === 2, 5_000);
    expect(endpoint.requests[1]!.headers['x-webhook-id']).toBe(
      endpoint.requests[0]!.headers['x-webhook-id'],
    );
  });

  test('when a logged delivery is redelivered, then a fresh delivery sends the same bytes with the same X-Webhook-Id', async () => {
    const { companyId, endpoint, webhook } = await subscribed((_request, index) =>
      index === 0 ? { status: 400 } : { status: 200 },
    );
    const event = brokerEvent('message_sent', companyId);
    await harness.publish(event);
    const [failed] = await waitFor(async () => {
      const rows = await logsOf(harness, companyId, webhook.id);
      return rows.length === 1 && rows;
    });
    expect(failed!.state).toBe('failed');

    const answer = await harness.api(
      companyId,
      `/developer/webhooks/${webhook.id}/logs/${failed!.id}/redeliver`,
      { method: 'POST' },
    );
    expect(answer.status).toBe(202);
    expect(answer.body.delivery).toMatchObject({ event_id: event.id, event: 'message_sent' });

    await waitFor(() => endpoint.requests.length === 2);
    expect(endpoint.requests[1]!.headers['x-webhook-id']).toBe(event.id);
    expect(endpoint.requests[1]!.body.equals(endpoint.requests[0]!.body)).toBe(true);
    const logs = await waitFor(async () => {
      const rows = await logsOf(harness, companyId, webhook.id);
      return rows.length === 2 && rows;
    });
    expect(logs[0]).toMatchObject({ state: 'succeeded', attempt: '1 / 3', event_id: event.id });
    expect(logs[0]!.delivery_id).not.toBe(failed!.delivery_id);
  });

  test('when a delivery was stored on its own before payloads were shared per event, then its log still shows the payload and it can be redelivered', async () => {
    const { companyId, endpoint, webhook } = await subscribed();
    const eventId = randomUUID();
    const payload = JSON.stringify({ event: 'message_sent', timestamp: new Date().toISOString() });
    const deliveryId = `${eventId}.${webhook.id}`;
    const now = new Date();
    await harness.service.db.collection('deliveries').insertOne({
      _id: deliveryId as never,
      webhook_id: webhook.id,
      company_id: companyId,
      event_id: eventId,
      event: 'message_sent',
      payload,
      kind: 'event',
      generation: 0,
      created_at: now,
    });
    await harness.service.db.collection('delivery_logs').insertOne({
      _id: `${deliveryId}:1` as never,
      webhook_id: webhook.id,
      company_id: companyId,
      delivery_id: deliveryId,
      event_id: eventId,
      event: 'message_sent',
      attempt: 1,
      max_attempts: 3,
      state: 'succeeded',
      response_status: 200,
      response_body: 'ok',
      error: null,
      duration_ms: 5,
      created_at: now,
    });

    const [log] = await logsOf(harness, companyId, webhook.id);
    expect(log!.payload).toEqual(JSON.parse(payload));
    const redelivered = await harness.api(
      companyId,
      `/developer/webhooks/${webhook.id}/logs/${String(log!.id)}/redeliver`,
      { method: 'POST' },
    );
    expect(redelivered.status).toBe(202);
    await waitFor(() => endpoint.requests.length === 1);
    expect(endpoint.requests[0]!.body.toString('utf8')).toBe(payload);
    expect(endpoint.requests[0]!.headers['x-webhook-id']).toBe(eventId);
  });

  test('when the webhook is paused, then tests and redeliveries are refused with 409', async () => {
    const { companyId, webhook } = await subscribed();
    const sent = await harness.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
      method: 'POST',
    });
    await toggle(companyId, webhook.id);

    const test = await harness.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
      method: 'POST',
    });
    expect(test.status).toBe(409);
    expect(test.body.code).toBe('conflict');
    const redelivery = await harness.api(
      companyId,
      `/developer/webhooks/${webhook.id}/logs/${sent.body.log.id}/redeliver`,
      { method: 'POST' },
    );
    expect(redelivery.status).toBe(409);
  });
});

describe('the test call with the delivery timeout of the spec', () => {
  let defaults: Harness;
  beforeAll(async () => {
    // The service's own request timeout, not the shortened one of the other tests.
    defaults = await startHarness('wh_test_timeout', { WEBHOOK_TIMEOUT_MS: undefined });
  });
  afterAll(() => defaults?.stop());

  test('when the receiver answers a test after 9 s, then the test counts as delivered', async () => {
    const companyId = newCompanyId();
    const endpoint = await startReceiver(() => ({ status: 200, body: 'slow', delayMs: 9_000 }));
    receivers.push(endpoint);
    const webhook = await createWebhook(defaults, companyId, {
      url: endpoint.url,
      events: ['message_sent'],
    });
    endpoint.trust(webhook.secret);

    const answer = await defaults.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
      method: 'POST',
    });

    expect(answer.status).toBe(200);
    expect(TestWebhookResponseSchema.parse(answer.body).log).toMatchObject({
      state: 'succeeded',
      response_status: 200,
      response_body: 'slow',
      error: null,
    });
    expect(endpoint.requests).toHaveLength(1);
  });
});
