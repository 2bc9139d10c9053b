import {
  DeleteWebhookResponseSchema,
  DeliveryLogListResponseSchema,
  ErrorResponseSchema,
  WEBHOOK_OPERATIONS,
  WebhookListResponseSchema,
  WebhookResponseSchema,
  buildOpenApiDocument,
} from '@switchboard/contracts';
import type { LooseJson } from '../../../../test/support/test-infra';
import { newCompanyId, startHarness, type Harness } from '../support/harness';
import { startReceiver, type Receiver } from '../support/receiver';

jest.setTimeout(30_000);

let harness: Harness;
let endpoint: Receiver;

beforeAll(async () => {
  harness = await startHarness('wh_api');
  endpoint = await startReceiver();
});

afterAll(async () => {
  await endpoint?.close();
  await harness?.stop();
});

/**
 * Calls webhooks as the gateway forwards a customer's call for organization `org`: the
 * organization in trusted headers, a JSON body (empty when none) on every method but GET.
 */
const call = (org: number, method: string, path: string, body?: object) =>
  harness.api(org, path, { method, body: method === 'GET' ? undefined : (body ?? {}) });

const organization = async () => newCompanyId();

const newWebhook = (org: number, body: object = {}) =>
  call(org, 'POST', '/developer/webhooks', {
    name: 'Orders',
    url: endpoint.url,
    events: ['message_sent', 'template_approved'],
    ...body,
  });

describe('webhook management API, as the gateway forwards it', () => {
  test('when a webhook is created, then the answer has its id and its secret in full, this once', async () => {
    const org = await organization();
    const created = await newWebhook(org);

    expect(created.status).toBe(201);
    const { webhook } = WebhookResponseSchema.parse(created.body);
    expect(webhook).toMatchObject({
      name: 'Orders',
      url: endpoint.url,
      events: ['message_sent', 'template_approved'],
      active: true,
    });
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(webhook.secret.slice(6), 'base64')).toHaveLength(32);

    const read = WebhookResponseSchema.parse(
      (await call(org, 'GET', `/developer/webhooks/${webhook.id}`)).body,
    );
    expect(read.webhook.secret).toBe(`whsec_…${webhook.secret.slice(-4)}`);
    const listed = WebhookListResponseSchema.parse(
      (await call(org, 'GET', '/developer/webhooks')).body,
    );
    expect(listed.webhooks).toEqual([read.webhook]);
    // Not even the database holds the secret in the clear.
    const stored = await harness.service.db
      .collection('webhooks')
      .findOne({ _id: webhook.id as never });
    expect(JSON.stringify(stored)).not.toContain(webhook.secret.slice(6));
  });

  test('when an organization creates many webhooks, then all are listed, each with its own secret', async () => {
    const org = await organization();
    const secrets = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const created = await newWebhook(org, { name: `Hook ${i}` });
      secrets.add(created.body.webhook.secret as string);
    }
    const listed = await call(org, 'GET', '/developer/webhooks');
    expect(listed.body.webhooks).toHaveLength(12);
    expect(listed.body.meta).toEqual({ total: 12, page: 1, per_page: 12, next_page: null });
    expect(secrets.size).toBe(12);

    // The paging convention of every list: page and per_page in, meta.next_page out.
    const seen: number[] = [];
    let page: number | null = 1;
    while (page !== null) {
      const answer = WebhookListResponseSchema.parse(
        (await call(org, 'GET', `/developer/webhooks?page=${page}&per_page=5`)).body,
      );
      seen.push(...answer.webhooks.map((webhook) => webhook.id));
      expect(answer.meta).toMatchObject({ page, per_page: 5, total: 12 });
      page = answer.meta.next_page;
    }
    expect(seen).toEqual(listed.body.webhooks.map((webhook: LooseJson) => webhook.id));
  });

  test.each([
    [
      'unknown event names',
      { events: ['message_sent', 'order_shipped', 'lead_won'] },
      'order_shipped, lead_won',
    ],
    ['no events', { events: [] }, 'events'],
    ['no name', { name: '' }, 'name'],
    ['a url that is not http(s)', { url: 'ftp://example.com/hooks' }, 'url'],
    ['a url with credentials', { url: 'https://user:pw@example.com/hooks' }, 'url'],
    ['an operator for a name', { name: { $gt: '' } }, 'name'],
  ])('when the webhook has %s, then the answer is 422 naming it', async (_case, body, named) => {
    const org = await organization();
    const answer = await newWebhook(org, body);
    expect(answer.status).toBe(422);
    const error = ErrorResponseSchema.parse(answer.body);
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain(named);
  });

  test('when unknown events are given, then they are also listed in unknown_events; reserved ones are accepted', async () => {
    const org = await organization();
    const refused = await newWebhook(org, { events: ['contact_created', 'nope'] });
    expect(refused.body.unknown_events).toEqual(['nope']);
    const accepted = await newWebhook(org, {
      events: ['contact_created', 'contact_updated', 'template_approved', 'template_rejected'],
    });
    expect(accepted.status).toBe(201);
  });

  test('when a webhook is updated, then only the given fields change; an empty update is refused', async () => {
    const org = await organization();
    const { webhook } = WebhookResponseSchema.parse((await newWebhook(org)).body);

    const renamed = await call(org, 'PUT', `/developer/webhooks/${webhook.id}`, {
      name: 'Renamed',
      events: ['campaign_completed'],
    });
    expect(renamed.status).toBe(200);
    expect(WebhookResponseSchema.parse(renamed.body).webhook).toMatchObject({
      name: 'Renamed',
      url: endpoint.url,
      events: ['campaign_completed'],
      secret: `whsec_…${webhook.secret.slice(-4)}`,
    });
    const moved = await call(org, 'PUT', `/developer/webhooks/${webhook.id}`, {
      url: `${endpoint.url}/v2`,
    });
    expect(moved.body.webhook).toMatchObject({ name: 'Renamed', url: `${endpoint.url}/v2` });
    expect((await call(org, 'PUT', `/developer/webhooks/${webhook.id}`, {})).status).toBe(422);
  });

  test('when a webhook is toggled, then active flips and the new state is returned', async () => {
    const org = await organization();
    const { webhook } = WebhookResponseSchema.parse((await newWebhook(org)).body);

    const paused = await call(org, 'POST', `/developer/webhooks/${webhook.id}/toggle`);
    expect(WebhookResponseSchema.parse(paused.body).webhook.active).toBe(false);
    const resumed = await call(org, 'POST', `/developer/webhooks/${webhook.id}/toggle`);
    expect(resumed.body.webhook.active).toBe(true);
  });

  test('when a webhook is deleted, then it is gone', async () => {
    const org = await organization();
    const { webhook } = WebhookResponseSchema.parse((await newWebhook(org)).body);

    const deleted = await call(org, 'DELETE', `/developer/webhooks/${webhook.id}`);
    expect(DeleteWebhookResponseSchema.parse(deleted.body)).toEqual({
      status: 'success',
      id: webhook.id,
      deleted: true,
    });
    expect((await call(org, 'GET', `/developer/webhooks/${webhook.id}`)).status).toBe(404);
    expect((await call(org, 'DELETE', `/developer/webhooks/${webhook.id}`)).status).toBe(404);
  });

  test("when another organization's id is used, then every operation answers 404", async () => {
    const owner = await organization();
    const stranger = await organization();
    const { webhook } = WebhookResponseSchema.parse((await newWebhook(owner)).body);
    const logId = (await call(owner, 'POST', `/developer/webhooks/${webhook.id}/test`)).body.log.id;
    const base = `/developer/webhooks/${webhook.id}`;

    for (const [method, path] of [
      ['GET', base],
      ['PUT', base],
      ['DELETE', base],
      ['POST', `${base}/toggle`],
      ['POST', `${base}/test`],
      ['POST', `${base}/rotate-secret`],
      ['GET', `${base}/logs`],
      ['POST', `${base}/logs/${logId}/redeliver`],
      ['GET', '/developer/webhooks/not-a-number'],
    ] as const) {
      const answer = await call(stranger, method, path, { name: 'Mine now' });
      expect([method, path, answer.status]).toEqual([method, path, 404]);
      expect(answer.body.code).toBe('not_found');
    }
    const still = await call(owner, 'GET', base);
    expect(still.body.webhook).toMatchObject({ name: 'Orders', active: true });
  });

  test('when logs are read, then they come newest first, paged, and can be filtered by state', async () => {
    const org = await organization();
    const { webhook } = WebhookResponseSchema.parse((await newWebhook(org)).body);
    endpoint.trust(webhook.secret);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await call(org, 'POST', `/developer/webhooks/${webhook.id}/test`)).body.log.id);
    }

    const first = DeliveryLogListResponseSchema.parse(
      (await call(org, 'GET', `/developer/webhooks/${webhook.id}/logs?limit=2`)).body,
    );
    expect(first).toMatchObject({ page: 1, limit: 2, total: 5, has_more: true });
    expect(first.meta).toEqual({ total: 5, page: 1, per_page: 2, next_page: 2 });
    const byPerPage = DeliveryLogListResponseSchema.parse(
      (await call(org, 'GET', `/developer/webhooks/${webhook.id}/logs?per_page=2&page=2`)).body,
    );
    expect(byPerPage.logs.map((log) => log.id)).toEqual([ids[2], ids[1]]);
    expect(byPerPage.meta.next_page).toBe(3);
    expect(first.logs.map((log) => log.id)).toEqual([ids[4], ids[3]]);
    const last = await call(org, 'GET', `/developer/webhooks/${webhook.id}/logs?limit=2&page=3`);
    expect(last.body.logs.map((log: LooseJson) => log.id)).toEqual([ids[0]]);
    expect(last.body.has_more).toBe(false);
    const failed = await call(org, 'GET', `/developer/webhooks/${webhook.id}/logs?state=failed`);
    expect(failed.body.logs).toEqual([]);
    const bad = await call(org, 'GET', `/developer/webhooks/${webhook.id}/logs?limit=1000`);
    expect(bad.status).toBe(422);
  });

  test('when the OpenAPI document is read, then it describes every webhook operation, and each is served', async () => {
    const document = buildOpenApiDocument() as unknown as LooseJson;
    const org = await organization();
    for (const operation of WEBHOOK_OPERATIONS) {
      expect(document.paths[operation.path]?.[operation.method]?.operationId).toBe(
        operation.operationId,
      );
      const path = operation.path.replace('{id}', '999999').replace('{log_id}', 'x');
      const answer = await call(org, operation.method.toUpperCase(), path);
      // A route exists for each: unknown ids are "not found" by the service, not "no route".
      expect(answer.body.message ?? '').not.toMatch(/^No route/);
    }
  });
});
