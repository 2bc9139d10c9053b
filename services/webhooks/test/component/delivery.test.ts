import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { WebhookEnvelopeSchema } from '@switchboard/contracts';
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
  type ReceivedRequest,
  type Receiver,
} from '../support/receiver';

jest.setTimeout(30_000);

let harness: Harness;
const receivers: Receiver[] = [];

beforeAll(async () => {
  harness = await startHarness('wh_delivery');
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await harness?.stop();
});

async function receiver(behaviour?: Behaviour) {
  const started = await startReceiver(behaviour);
  receivers.push(started);
  return started;
}

/** A receiver with a webhook of a new organization subscribed to `events`. */
async function subscribed(behaviour?: Behaviour, events: string[] = ['message_sent']) {
  const companyId = newCompanyId();
  const endpoint = await receiver(behaviour);
  const webhook = await createWebhook(harness, companyId, { url: endpoint.url, events });
  endpoint.trust(webhook.secret);
  return { companyId, endpoint, webhook };
}

const header = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value[0]! : value!;

function standardVerify(secret: string, request: ReceivedRequest, body = request.body) {
  return new StandardWebhook(secret).verify(body.toString('utf8'), {
    'webhook-id': header(request.headers['webhook-id']),
    'webhook-timestamp': header(request.headers['webhook-timestamp']),
    'webhook-signature': header(request.headers['webhook-signature']),
  });
}

async function logsWhen(
  companyId: number,
  id: number,
  ready: (logs: Awaited<ReturnType<typeof logsOf>>) => boolean,
  timeoutMs = 5_000,
) {
  return waitFor(
    async () => {
      const logs = await logsOf(harness, companyId, id);
      return ready(logs) && logs;
    },
    timeoutMs,
    'delivery logs',
  );
}

describe('delivery of events to subscribed webhooks', () => {
  test('when an event is published, then every active subscribed webhook of its organization receives it, signed both ways', async () => {
    const { companyId, endpoint, webhook } = await subscribed(undefined, [
      'message_sent',
      'message_received',
    ]);
    const second = await receiver();
    const other = await createWebhook(harness, companyId, {
      url: second.url,
      events: ['message_sent'],
    });
    second.trust(other.secret);
    const event = brokerEvent('message_sent', companyId);

    await harness.publish(event);

    await waitFor(() => endpoint.requests.length === 1 && second.requests.length === 1);
    for (const [request, secret] of [
      [endpoint.requests[0]!, webhook.secret],
      [second.requests[0]!, other.secret],
    ] as const) {
      expect(request.verified).toBe(true);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toMatch(/^Switchboard-Webhooks\//);
      expect(request.headers['x-webhook-event']).toBe('message_sent');
      expect(request.headers['x-webhook-id']).toBe(event.id);
      expect(request.headers['webhook-id']).toBe(event.id);
      const envelope = WebhookEnvelopeSchema.parse(JSON.parse(request.body.toString('utf8')));
      expect(envelope).toEqual({
        event: 'message_sent',
        timestamp: event.timestamp,
        data: event.data,
      });
      expect(Object.keys(envelope)).toEqual(['event', 'timestamp', 'data']);
      expect(standardVerify(secret, request)).toEqual(envelope);
    }
    // The envelope was serialized once: both endpoints got the same bytes.
    expect(endpoint.requests[0]!.body.equals(second.requests[0]!.body)).toBe(true);
    // On the wire, every header in this order and spelling, and nothing else.
    const { rawHeaders, body } = endpoint.requests[0]!;
    const names = rawHeaders.filter((_, index) => index % 2 === 0);
    expect(names).toEqual([
      'Content-Type',
      'User-Agent',
      'X-Webhook-Event',
      'X-Webhook-Signature',
      'X-Webhook-Id',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'Content-Length',
      'Host',
      'Connection',
    ]);
    const value = (name: string) => rawHeaders[rawHeaders.indexOf(name) + 1];
    expect(value('Content-Length')).toBe(String(body.length));
    expect(value('Host')).toBe(new URL(endpoint.url).host);
    expect(value('Connection')).toBe('keep-alive');
  });

  test('when events are not subscribed, belong to another organization or reach a paused webhook, then nothing is delivered', async () => {
    const { companyId, endpoint } = await subscribed(undefined, ['message_sent']);
    const paused = await receiver();
    const pausedHook = await createWebhook(harness, companyId, {
      url: paused.url,
      events: ['message_sent'],
    });
    paused.trust(pausedHook.secret);
    await harness.api(companyId, `/developer/webhooks/${pausedHook.id}/toggle`, { method: 'POST' });

    await harness.publish(brokerEvent('message_received', companyId));
    await harness.publish(brokerEvent('message_sent', newCompanyId()));
    const marker = brokerEvent('message_sent', companyId);
    await harness.publish(marker);

    await waitFor(() => endpoint.requests.length >= 1);
    await sleep(300);
    expect(endpoint.requests.map((request) => request.headers['x-webhook-id'])).toEqual([
      marker.id,
    ]);
    expect(paused.requests).toHaveLength(0);
    expect(await logsOf(harness, companyId, pausedHook.id)).toEqual([]);
  });

  test('when the same event arrives twice, then it is delivered once', async () => {
    const { companyId, endpoint, webhook } = await subscribed();
    const event = brokerEvent('message_sent', companyId);

    await harness.publish(event);
    await waitFor(() => endpoint.requests.length === 1);
    await harness.publish(event);
    await harness.publish(brokerEvent('message_sent', companyId));

    await waitFor(() => endpoint.requests.length === 2);
    await sleep(300);
    expect(endpoint.requests).toHaveLength(2);
    expect((await logsOf(harness, companyId, webhook.id)).length).toBe(2);
  });
});

describe('the delivery log', () => {
  test('when attempts are logged, then each stored row leaves out what its id says, and the log still answers every field', async () => {
    let calls = 0;
    const { companyId, webhook } = await subscribed(() =>
      ++calls === 1 ? { status: 500, body: 'busy' } : { status: 200, body: 'ok' },
    );
    const event = brokerEvent('message_sent', companyId);
    await harness.publish(event);
    const logs = await logsWhen(companyId, webhook.id, (found) => found.length === 2);

    const deliveryId = `${event.id}.${webhook.id}`;
    expect(
      logs.map(({ payload: _payload, created_at: _at, duration_ms: _ms, ...log }) => log),
    ).toEqual([
      {
        id: `${deliveryId}:2`,
        delivery_id: deliveryId,
        event_id: event.id,
        event: 'message_sent',
        response_status: 200,
        response_body: 'ok',
        error: null,
        attempt: '2 / 3',
        state: 'succeeded',
      },
      {
        id: `${deliveryId}:1`,
        delivery_id: deliveryId,
        event_id: event.id,
        event: 'message_sent',
        response_status: 500,
        response_body: 'busy',
        error: 'receiver answered 500',
        attempt: '1 / 3',
        state: 'retrying',
      },
    ]);
    // Stored: the delivery, the attempt and the event are in the `_id`, and a null is no field.
    const stored = await harness.service.db
      .collection('delivery_logs')
      .findOne({ _id: `${deliveryId}:2` as never });
    expect(Object.keys(stored ?? {}).sort()).toEqual([
      '_id',
      'company_id',
      'created_at',
      'duration_ms',
      'event',
      'max_attempts',
      'response_body',
      'response_status',
      'state',
      'webhook_id',
    ]);
  });

  test('when a test delivery is logged, then its event id, which its delivery id does not say, is stored and answered', async () => {
    const { companyId, webhook } = await subscribed();
    const answer = await harness.api(companyId, `/developer/webhooks/${webhook.id}/test`, {
      method: 'POST',
    });
    const { log } = answer.body as { log: { id: string; delivery_id: string; event_id: string } };
    expect(log.event_id).not.toBe(log.delivery_id);
    const [listed] = await logsOf(harness, companyId, webhook.id);
    expect(listed).toMatchObject({
      id: log.id,
      delivery_id: log.delivery_id,
      event_id: log.event_id,
    });
    const stored = await harness.service.db
      .collection('delivery_logs')
      .findOne({ _id: log.id as never });
    expect(stored).toMatchObject({ event_id: log.event_id });
    expect(stored).not.toHaveProperty('delivery_id');
  });
});

describe("the receiver's view", () => {
  test('when any of event, timestamp or data is changed, then neither signature verifies any more', async () => {
    const { companyId, endpoint, webhook } = await subscribed();
    await harness.publish(brokerEvent('message_sent', companyId));
    const request = await waitFor(() => endpoint.requests[0]);
    const original = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
    expect(original.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);

    const tampered = [
      { ...original, event: 'message_failed' },
      { ...original, timestamp: '2020-01-01T00:00:00+00:00' },
      { ...original, data: { ...(original.data as object), phone: '15559999999' } },
    ];
    const given = header(request.headers['x-webhook-signature']);
    expect(signatureMatches(webhook.secret, request.body, given)).toBe(true);
    for (const changed of tampered) {
      const body = Buffer.from(JSON.stringify(changed));
      expect(signatureMatches(webhook.secret, body, given)).toBe(false);
      expect(() => standardVerify(webhook.secret, request, body)).toThrow();
    }
  });

  test('when the receiver checks with another secret, then it answers 403 and the attempt fails without retry', async () => {
    const { companyId, endpoint, webhook } = await subscribed();
    endpoint.secrets.splice(
      0,
      endpoint.secrets.length,
      'whsec_bm90IHRoZSByaWdodCBzZWNyZXQgYXQgYWxsISEhIQ==',
    );
    await harness.publish(brokerEvent('message_sent', companyId));

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows.length === 1);
    expect(logs[0]).toMatchObject({ state: 'failed', response_status: 403, attempt: '1 / 3' });
    await sleep(500);
    expect(endpoint.requests).toHaveLength(1);
  });
});

describe('retries', () => {
  test('when the receiver answers 500 once, then attempt 2 sends the same bytes and id and succeeds; both attempts are logged', async () => {
    const { companyId, endpoint, webhook } = await subscribed((_request, index) =>
      index === 0 ? { status: 500, body: 'boom' } : { status: 204 },
    );
    const event = brokerEvent('message_sent', companyId);
    await harness.publish(event);

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows.length === 2);
    const [first, second] = endpoint.requests;
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(second!.headers['x-webhook-id']).toBe(first!.headers['x-webhook-id']);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(250);
    expect(logs).toEqual([
      expect.objectContaining({ state: 'succeeded', attempt: '2 / 3', response_status: 204 }),
      expect.objectContaining({
        state: 'retrying',
        attempt: '1 / 3',
        response_status: 500,
        response_body: 'boom',
        error: 'receiver answered 500',
        event: 'message_sent',
        event_id: event.id,
      }),
    ]);
    expect(logs[1]!.payload).toEqual(JSON.parse(first!.body.toString('utf8')));
    expect(logs[1]!.duration_ms).toEqual(expect.any(Number));
  });

  test('when the receiver keeps answering 503, then three attempts are made at the configured waits and the last is failed', async () => {
    const { companyId, endpoint, webhook } = await subscribed(() => ({ status: 503 }));
    await harness.publish(brokerEvent('message_sent', companyId));

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows[0]?.state === 'failed');
    expect(logs.map((row) => `${row.attempt} ${row.state}`)).toEqual([
      '3 / 3 failed',
      '2 / 3 retrying',
      '1 / 3 retrying',
    ]);
    const [a, b, c] = endpoint.requests.map((request) => request.at);
    expect(b! - a!).toBeGreaterThanOrEqual(280);
    expect(b! - a!).toBeLessThan(1_000);
    expect(c! - b!).toBeGreaterThanOrEqual(580);
    expect(c! - b!).toBeLessThan(1_300);
    await sleep(1_000);
    expect(endpoint.requests).toHaveLength(3);
  });

  test.each([
    [400, 'receiver answered 400'],
    [404, 'receiver answered 404'],
    [429, 'receiver answered 429'],
  ])('when the receiver answers %i, then the delivery fails at once', async (status, error) => {
    const { companyId, endpoint, webhook } = await subscribed(() => ({ status }));
    await harness.publish(brokerEvent('message_sent', companyId));

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows.length === 1);
    expect(logs[0]).toMatchObject({
      state: 'failed',
      attempt: '1 / 3',
      response_status: status,
      error,
    });
    await sleep(500);
    expect(endpoint.requests).toHaveLength(1);
  });

  test('when the receiver redirects, then the redirect is not followed and the delivery fails', async () => {
    const target = await receiver();
    const { companyId, webhook } = await subscribed(() => ({
      status: 307,
      headers: { location: target.url },
    }));
    await harness.publish(brokerEvent('message_sent', companyId));

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows.length === 1);
    expect(logs[0]).toMatchObject({
      state: 'failed',
      response_status: 307,
      error: 'receiver answered 307: redirects are not followed',
    });
    expect(target.requests).toHaveLength(0);
  });

  test('when the receiver answers 410 Gone, then the webhook is paused and the log says so', async () => {
    const { companyId, webhook } = await subscribed(() => ({ status: 410 }));
    await harness.publish(brokerEvent('message_sent', companyId));

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows.length === 1);
    expect(logs[0]).toMatchObject({ state: 'failed', response_status: 410 });
    expect(logs[0]!.error).toContain('paused');
    const read = await harness.api(companyId, `/developer/webhooks/${webhook.id}`);
    expect(read.body.webhook.active).toBe(false);
  });

  test('when the receiver hangs, then the attempt is cut at the timeout, counted as one, and retried', async () => {
    const { companyId, webhook } = await subscribed((_request, index) =>
      index === 0 ? { hang: true } : { status: 200 },
    );
    await harness.publish(brokerEvent('message_sent', companyId));

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows[0]?.state === 'succeeded');
    expect(logs[1]).toMatchObject({
      state: 'retrying',
      response_status: null,
      error: 'timed out after 1000 ms',
    });
    expect(logs[1]!.duration_ms).toBeGreaterThanOrEqual(950);
    expect(logs[1]!.duration_ms).toBeLessThan(1_500);
    // The operator's dashboards tell a receiver too slow from one that cannot be reached.
    const { body: metrics } = await harness.service.metrics.scrape();
    expect(metrics).toMatch(
      /switchboard_outbound_requests_total\{client="webhook-endpoint",outcome="timeout"[^}]*\} [1-9]/,
    );
  });

  test('when the receiver trickles its answer byte by byte, then the timeout is still a hard wall-clock limit', async () => {
    const sockets = new Set<Socket>();
    const trickler: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      const status = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n';
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || sent >= status.length) return clearInterval(timer);
        socket.write(status[sent++]!);
      }, 100);
      socket.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve));
    try {
      const companyId = newCompanyId();
      const port = (trickler.address() as AddressInfo).port;
      const webhook = await createWebhook(harness, companyId, {
        url: `http://127.0.0.1:${port}/slow`,
        events: ['message_sent'],
      });
      await harness.publish(brokerEvent('message_sent', companyId));

      const logs = await logsWhen(companyId, webhook.id, (rows) => rows.length >= 1);
      expect(logs.at(-1)).toMatchObject({ state: 'retrying', error: 'timed out after 1000 ms' });
      expect(logs.at(-1)!.duration_ms).toBeLessThan(1_500);
    } finally {
      for (const socket of sockets) socket.destroy();
      trickler.close();
    }
  });

  test('when nothing listens at the url, then the connection error is logged and retried', async () => {
    const companyId = newCompanyId();
    const webhook = await createWebhook(harness, companyId, {
      url: 'http://127.0.0.1:1/nothing-here',
      events: ['message_sent'],
    });
    await harness.publish(brokerEvent('message_sent', companyId));

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows.length >= 1);
    expect(logs.at(-1)).toMatchObject({
      state: 'retrying',
      response_status: null,
      attempt: '1 / 3',
    });
    expect(logs.at(-1)!.error).toContain('ECONNREFUSED');
  });

  test('when the receiver answers with a huge body, then at most 64 KiB of it is read and kept', async () => {
    const { companyId, webhook } = await subscribed(() => ({
      status: 200,
      body: 'x'.repeat(300 * 1024),
    }));
    await harness.publish(brokerEvent('message_sent', companyId));

    const logs = await logsWhen(companyId, webhook.id, (rows) => rows.length === 1);
    expect(logs[0]!.state).toBe('succeeded');
    expect(logs[0]!.response_body).toHaveLength(64 * 1024);
  });
});
