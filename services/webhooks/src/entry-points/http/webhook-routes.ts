import type { Request, Router } from 'express';
import type { ZodType } from 'zod';
import {
  CreateWebhookRequestSchema,
  DeliveryLogsQuerySchema,
  DEFAULT_LOGS_PER_PAGE,
  ListWebhooksQuerySchema,
  MAX_WEBHOOKS_PER_PAGE,
  pageMeta,
  pageRequest,
  TestWebhookRequestSchema,
  UpdateWebhookRequestSchema,
  WebhookIdParamsSchema,
  unknownEventNames,
  type DeleteWebhookResponse,
  type DeliveryLogListResponse,
  type RedeliverResponse,
  type TestWebhookResponse,
  type WebhookListResponse,
  type WebhookResponse,
  pageOrWholeList,
} from '@switchboard/contracts';
import { AppError, describeZodError, orgContext, parseInput } from '@switchboard/service-kit';
import type { DeliveryDeps } from '../../domain/attempt-delivery';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveryLogs,
  rotateSecret,
  toggleWebhook,
  updateWebhook,
  webhookNotFound,
  type ManageDeps,
} from '../../domain/manage-webhooks';
import { redeliver, sendTestDelivery } from '../../domain/replay-delivery';
import { presentLog, presentWebhook } from '../../domain/present-webhook';

export interface WebhookRouteDeps {
  manage: ManageDeps;
  delivery: DeliveryDeps;
}

const BASE = '/developer/webhooks';

/** A 422 naming each bad field; unknown event names are also listed in `unknown_events`. */
function parseBody<T>(schema: ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const events = (body as { events?: unknown } | undefined)?.events;
  const names = Array.isArray(events)
    ? events.filter((e): e is string => typeof e === 'string')
    : [];
  const unknown = unknownEventNames(names);
  throw new AppError('validation_failed', describeZodError(result.error), {
    ...(unknown.length > 0 ? { details: { unknown_events: unknown } } : {}),
  });
}

/** An id that is not a positive integer names no webhook: 404, like another organization's id. */
function webhookId(req: Request): number {
  const parsed = WebhookIdParamsSchema.safeParse(req.params);
  if (!parsed.success) throw webhookNotFound(String(req.params.id));
  return parsed.data.id;
}

/** The webhook management API (Developer, Webhooks), behind the gateway's token check. */
export function webhookRoutes(router: Router, deps: WebhookRouteDeps): void {
  const { manage } = deps;

  router.post(BASE, async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseBody(CreateWebhookRequestSchema, req.body);
    const view = await createWebhook(manage, company_id, request);
    const body: WebhookResponse = { status: 'success', webhook: presentWebhook(view) };
    res.status(201).json(body);
  });

  router.get(BASE, async (req, res) => {
    const { company_id } = orgContext(req);
    const paging = parseInput(ListWebhooksQuerySchema, req.query);
    const all = await manage.webhooks.listByCompany(company_id);
    // An organization's endpoints are few: read whole, cut the page in code.
    const { items, meta } = pageOrWholeList(all, paging, MAX_WEBHOOKS_PER_PAGE);
    const body: WebhookListResponse = {
      status: 'success',
      webhooks: items.map((webhook) => presentWebhook({ webhook })),
      meta,
    };
    res.json(body);
  });

  router.get(`${BASE}/:id`, async (req, res) => {
    const { company_id } = orgContext(req);
    const webhook = await getWebhook(manage, company_id, webhookId(req));
    const body: WebhookResponse = { status: 'success', webhook: presentWebhook({ webhook }) };
    res.json(body);
  });

  router.put(`${BASE}/:id`, async (req, res) => {
    const { company_id } = orgContext(req);
    const id = webhookId(req);
    const changes = parseBody(UpdateWebhookRequestSchema, req.body);
    const webhook = await updateWebhook(manage, company_id, id, changes);
    const body: WebhookResponse = { status: 'success', webhook: presentWebhook({ webhook }) };
    res.json(body);
  });

  router.delete(`${BASE}/:id`, async (req, res) => {
    const { company_id } = orgContext(req);
    const id = webhookId(req);
    await deleteWebhook(manage, company_id, id);
    const body: DeleteWebhookResponse = { status: 'success', id, deleted: true };
    res.json(body);
  });

  router.post(`${BASE}/:id/toggle`, async (req, res) => {
    const { company_id } = orgContext(req);
    const webhook = await toggleWebhook(manage, company_id, webhookId(req));
    const body: WebhookResponse = { status: 'success', webhook: presentWebhook({ webhook }) };
    res.json(body);
  });

  router.post(`${BASE}/:id/rotate-secret`, async (req, res) => {
    const { company_id } = orgContext(req);
    const view = await rotateSecret(manage, company_id, webhookId(req));
    const body: WebhookResponse = { status: 'success', webhook: presentWebhook(view) };
    res.json(body);
  });

  router.post(`${BASE}/:id/test`, async (req, res) => {
    const { company_id } = orgContext(req);
    const id = webhookId(req);
    const { event } = parseBody(TestWebhookRequestSchema, req.body);
    const sent = await sendTestDelivery(deps.delivery, company_id, id, event);
    const body: TestWebhookResponse = {
      status: 'success',
      log: presentLog(sent.log, sent.payload),
    };
    res.json(body);
  });

  router.get(`${BASE}/:id/logs`, async (req, res) => {
    const { company_id } = orgContext(req);
    const id = webhookId(req);
    const query = parseInput(DeliveryLogsQuerySchema, req.query);
    const page = pageRequest(query, DEFAULT_LOGS_PER_PAGE);
    const { rows, total } = await listDeliveryLogs(manage, company_id, id, {
      page: page.page,
      limit: page.per_page,
      ...(query.state ? { state: query.state } : {}),
    });
    const meta = pageMeta(total, page);
    const body: DeliveryLogListResponse = {
      status: 'success',
      logs: rows.flatMap((row) => (row.payload === null ? [] : [presentLog(row, row.payload)])),
      meta,
      page: page.page,
      limit: page.per_page,
      total,
      has_more: meta.next_page !== null,
    };
    res.json(body);
  });

  router.post(`${BASE}/:id/logs/:log_id/redeliver`, async (req, res) => {
    const { company_id } = orgContext(req);
    const id = webhookId(req);
    const delivery = await redeliver(deps.delivery, company_id, id, String(req.params.log_id));
    const body: RedeliverResponse = {
      status: 'success',
      delivery: {
        id: delivery._id,
        webhook_id: delivery.webhook_id,
        event_id: delivery.event_id,
        event: delivery.event,
      },
    };
    res.status(202).json(body);
  });
}
