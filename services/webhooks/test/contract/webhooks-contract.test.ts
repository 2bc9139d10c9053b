import {
  EVENT_NAMES,
  RESERVED_EVENT_NAMES,
  WEBHOOK_HEADERS,
  WEBHOOK_OPERATIONS,
  WebhookEnvelopeSchema,
  type Operation,
} from '@switchboard/contracts';
import {
  brokerEvent,
  createWebhook,
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
  harness = await startHarness('wh_contract');
  endpoint = await startReceiver();
});

afterAll(async () => {
  await endpoint?.close();
  await harness?.stop();
});

describe('what receivers get matches the contracts', () => {
  test('when each of the twelve catalog events is published, reserved ones included, then each is delivered as a valid envelope of the same data', async () => {
    const companyId = newCompanyId();
    const { secret } = await createWebhook(harness, companyId, {
      url: endpoint.url,
      events: [...EVENT_NAMES],
    });
    endpoint.trust(secret);
    const events = EVENT_NAMES.map((name) => brokerEvent(name, companyId));
    for (const event of events) await harness.publish(event);

    await waitFor(() => endpoint.requests.length === EVENT_NAMES.length, 10_000);
    for (const event of events) {
      const request = endpoint.requests.find(
        (candidate) => candidate.headers['x-webhook-id'] === event.id,
      )!;
      expect(request.verified).toBe(true);
      expect(request.headers[WEBHOOK_HEADERS.event.toLowerCase()]).toBe(event.event);
      const envelope = WebhookEnvelopeSchema.parse(JSON.parse(request.body.toString('utf8')));
      expect(envelope).toEqual({
        event: event.event,
        timestamp: event.timestamp,
        data: event.data,
      });
    }
    expect(RESERVED_EVENT_NAMES.every((name) => events.some((event) => event.event === name))).toBe(
      true,
    );
  });
});

describe('what the management API answers matches the contracts', () => {
  test('when every operation is called with valid input, then each answer parses with the schema declared for its status', async () => {
    const companyId = newCompanyId();
    const created = await createWebhook(harness, companyId, {
      url: endpoint.url,
      events: ['message_sent'],
    });
    endpoint.trust(created.secret);
    const tested = await harness.api(companyId, `/developer/webhooks/${created.id}/test`, {
      method: 'POST',
    });
    const logId = tested.body.log.id as string;
    const toDelete = await createWebhook(harness, companyId, {
      url: endpoint.url,
      events: ['message_sent'],
    });
    const toPause = await createWebhook(harness, companyId, {
      url: endpoint.url,
      events: ['message_sent'],
    });
    const ids: Record<string, number> = { deleteWebhook: toDelete.id, toggleWebhook: toPause.id };

    const bodies: Record<string, object | undefined> = {
      createWebhook: { name: 'Contract', url: endpoint.url, events: ['message_sent'] },
      updateWebhook: { name: 'Renamed' },
      testWebhook: { event: 'message_sent' },
    };
    const answer = async (operation: Operation) => {
      const id = ids[operation.operationId] ?? created.id;
      const path = operation.path.replace('{id}', String(id)).replace('{log_id}', logId);
      return harness.api(companyId, path, {
        method: operation.method.toUpperCase(),
        body: bodies[operation.operationId],
      });
    };
    const operations: readonly Operation[] = WEBHOOK_OPERATIONS;
    for (const operation of operations) {
      const { status, body } = await answer(operation);
      const schema = operation.responses[status];
      expect([operation.operationId, status, schema ? 'declared' : 'undeclared']).toEqual([
        operation.operationId,
        Number(Object.keys(operation.responses)[0]),
        'declared',
      ]);
      expect(schema!.safeParse(body).error).toBeUndefined();
    }
  });
});
