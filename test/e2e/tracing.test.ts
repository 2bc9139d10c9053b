// Tracing across services: every service as its own process exports to a local
// OTLP/HTTP receiver; one send is one trace from the gateway to the customer's endpoint.
import { SendMessageResponseSchema, WebhookResponseSchema } from '@switchboard/contracts';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';
import {
  SPAN_KIND,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../support/otlp-receiver';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let otlp: OtlpReceiver;
let customer: Receiver;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  customer = await startReceiver();
  e2e = await startE2eSystem('e2etrace', {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    // Spans leave each process within a fraction of a second, so the waits below stay short.
    OTEL_BSP_SCHEDULE_DELAY: '200',
    ALLOW_PRIVATE_URLS: 'true',
    EMIT_RESERVED_EVENTS: 'true',
    LOG_LEVEL: 'info',
  });
});

afterAll(async () => {
  await e2e?.stop();
  await customer?.close();
  await otlp?.close();
});

const portOf = (url: string) => Number(new URL(url).port);

/** The first span of `trace` matching `test`; undefined until it has arrived. */
function find(trace: string, test: (span: ReceivedSpan) => boolean): ReceivedSpan | undefined {
  return otlp.spans.find((span) => span.traceId === trace && test(span));
}

test('when a message is sent through the gateway, then the gateway, messaging, the provider call, the broker, webhooks and the POST to the customer share one trace, and log lines name it', async () => {
  const org = await e2e.createOrganization('Traced Co', 'standard');
  const hook = await fetch(`${e2e.gateway}/developer/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token: org.token,
      name: 'Traced',
      url: customer.url,
      events: ['message_sent', 'contact_created'],
    }),
  });
  expect(hook.status).toBe(201);
  customer.trust(WebhookResponseSchema.parse(await jsonBody(hook)).webhook.secret);

  const sent = await e2e.api(org.token).post('sendMessageToPhoneNumber', {
    phone: '393471239901',
    message: 'Traced hello',
  });
  expect(sent.status).toBe(200);
  const { message_id } = SendMessageResponseSchema.parse(sent.body);

  // The trace is the one of the gateway's server span for this request.
  const entry = await until(
    async () =>
      otlp.spans.find(
        (span) =>
          span.service === 'gateway' &&
          span.kind === SPAN_KIND.server &&
          span.attributes['url.path'] === '/api/svc/sendMessageToPhoneNumber',
      ),
    'the gateway span of the send',
  );
  const trace = entry.traceId;

  const delivered = (event: string) =>
    customer.requests.find((request) => request.headers['x-webhook-event'] === event);
  const posts = await until(async () => {
    const sentPost = delivered('message_sent');
    const createdPost = delivered('contact_created');
    return sentPost && createdPost ? { sentPost, createdPost } : undefined;
  }, 'message_sent and contact_created at the customer endpoint');
  expect(JSON.parse(posts.sentPost.body.toString()).data.message_id).toBe(message_id);
  // Our trace context stays home: the customer's endpoint is outside Switchboard.
  expect(posts.sentPost.headers.traceparent).toBeUndefined();
  expect(posts.createdPost.headers.traceparent).toBeUndefined();

  const customerPort = portOf(customer.url);
  const expected: Record<string, (span: ReceivedSpan) => boolean> = {
    'messaging serves the send': (s) =>
      s.service === 'messaging' &&
      s.kind === SPAN_KIND.server &&
      s.attributes['url.path'] === '/api/svc/sendMessageToPhoneNumber',
    'messaging calls the provider': (s) =>
      s.service === 'messaging' &&
      s.kind === SPAN_KIND.client &&
      s.attributes['server.port'] === portOf(e2e.simulator),
    'messaging asks contacts': (s) => s.service === 'contacts' && s.kind === SPAN_KIND.server,
    'messaging publishes message_sent': (s) =>
      s.service === 'messaging' &&
      s.kind === SPAN_KIND.producer &&
      s.attributes['messaging.rabbitmq.destination.routing_key'] === 'message_sent.direct',
    'contacts publishes contact_created from its outbox': (s) =>
      s.service === 'contacts' &&
      s.kind === SPAN_KIND.producer &&
      s.attributes['messaging.rabbitmq.destination.routing_key'] === 'contact_created',
    'webhooks consumes the event': (s) =>
      s.service === 'webhooks' &&
      s.kind === SPAN_KIND.consumer &&
      s.attributes['messaging.destination.name'] === 'webhooks.events',
    // The first attempt is made while the event is consumed, in its span.
    'webhooks POSTs to the customer': (s) =>
      s.service === 'webhooks' &&
      s.kind === SPAN_KIND.client &&
      s.attributes['server.port'] === customerPort,
  };
  const missing = () =>
    Object.entries(expected)
      .filter(([, test]) => !find(trace, test))
      .map(([what]) => what);
  await until(async () => (missing().length === 0 ? true : undefined), 'every span', 15_000).catch(
    () => undefined,
  );
  expect(missing()).toEqual([]);
  // Two customer POSTs (message_sent and contact_created), both in the trace of the send.
  const customerPosts = () =>
    otlp.spans.filter(
      (s) =>
        s.traceId === trace &&
        s.kind === SPAN_KIND.client &&
        s.attributes['server.port'] === customerPort,
    ).length;
  await until(async () => (customerPosts() >= 2 ? true : undefined), 'both POSTs', 5_000).catch(
    () => undefined,
  );
  expect(customerPosts()).toBe(2);

  // Log lines written while handling the send name its trace, in the gateway and in messaging.
  const namingServices = () => {
    const named = e2e.output.filter((line) => line.includes(`"trace_id":"${trace}"`));
    return [...new Set(named.map((line) => line.split(':')[0]))];
  };
  await until(
    async () =>
      ['gateway', 'messaging'].every((s) => namingServices().includes(s)) ? true : undefined,
    'log lines naming the trace',
    5_000,
  ).catch(() => undefined);
  expect(namingServices()).toEqual(expect.arrayContaining(['gateway', 'messaging']));
});

test('when the provider reports a status, then one trace follows it from inbound through the broker and messaging to the POST to the customer, and no token from a URL is in any span', async () => {
  const org = await e2e.createOrganization('Status Trace Co', 'standard');
  const hook = await fetch(`${e2e.gateway}/developer/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token: org.token,
      name: 'Statuses',
      url: customer.url,
      events: ['message_status_updated'],
    }),
  });
  expect(hook.status).toBe(201);
  customer.trust(WebhookResponseSchema.parse(await jsonBody(hook)).webhook.secret);
  const sent = await e2e.api(org.token).post('sendMessageToPhoneNumber', {
    phone: '393471239902',
    message: 'Status please',
  });
  expect(sent.status).toBe(200);

  const customerPort = portOf(customer.url);
  const steps: ((span: ReceivedSpan) => boolean)[] = [
    (s) => s.service === 'inbound' && s.kind === SPAN_KIND.server,
    (s) =>
      s.service === 'inbound' &&
      s.kind === SPAN_KIND.producer &&
      s.attributes['messaging.rabbitmq.destination.routing_key'] === 'provider.status',
    (s) =>
      s.service === 'messaging' &&
      s.kind === SPAN_KIND.consumer &&
      s.attributes['messaging.rabbitmq.destination.routing_key'] === 'provider.status',
    (s) =>
      s.service === 'messaging' &&
      s.kind === SPAN_KIND.producer &&
      s.attributes['messaging.rabbitmq.destination.routing_key'] ===
        'message_status_updated.direct',
    (s) =>
      s.service === 'webhooks' &&
      s.kind === SPAN_KIND.client &&
      s.attributes['server.port'] === customerPort,
  ];
  // Each status webhook of the provider starts its own trace; one of them reaches the customer.
  const complete = await until(async () => {
    const inboundTraces = new Set(
      otlp.spans.filter((s) => s.service === 'inbound').map((s) => s.traceId),
    );
    return [...inboundTraces].find((trace) => steps.every((step) => find(trace, step)));
  }, 'a status traced from inbound to the customer');
  expect(complete).toMatch(/^[0-9a-f]{32}$/);

  // Credentials in URLs never reach a span: the API token in a GET's query, the inbound token in
  // the provider's webhook path.
  const { message_id } = SendMessageResponseSchema.parse(sent.body);
  expect((await e2e.api(org.token).get('getMessageStatus', { message_id })).status).toBe(200);
  const get = await until(
    async () =>
      otlp.spans.find(
        (s) => s.service === 'gateway' && s.attributes['url.path'] === '/api/svc/getMessageStatus',
      ),
    'the gateway span of the GET',
  );
  expect(get.attributes['url.query']).toBe(`token=REDACTED&message_id=${message_id}`);
  const inboundToken = new URL(org.channel.inbound_url).pathname.split('/').pop()!;
  const exported = JSON.stringify(otlp.spans);
  expect(exported).toContain('/webhook/svc/receive/REDACTED');
  expect(exported).not.toContain(org.token);
  expect(exported).not.toContain(inboundToken);
});
