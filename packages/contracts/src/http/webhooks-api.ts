import { z } from 'zod';
import { successResponse } from '../envelope';
import { EVENT_NAMES, EventNameSchema, type EventName } from '../events/event-names';
import { defineOperation } from './operation';
import { PageMetaSchema, pageQuery } from './paging';
import { HTTP_URL, HTTPS_URL_PATTERN } from './url-pattern';

/** Every webhook secret starts with this; the rest is the base64 of at least 32 random bytes. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** The published delivery log row: a failed attempt still to be retried is `retrying`. */
export const DELIVERY_LOG_STATES = ['retrying', 'succeeded', 'failed'] as const;
export const DeliveryLogStateSchema = z.enum(DELIVERY_LOG_STATES);
export type DeliveryLogState = z.infer<typeof DeliveryLogStateSchema>;

/** The names in `names` that are not in the published event catalog. */
export function unknownEventNames(names: readonly string[]): string[] {
  const known = new Set<string>(EVENT_NAMES);
  return [...new Set(names.filter((name) => !known.has(name)))];
}

const timestamp = () => z.iso.datetime({ offset: true });

/** A non-empty subset of the twelve catalog names (reserved ones too); duplicates are dropped. */
export const WebhookEventsSchema = z
  .array(z.string().max(100))
  .min(1, 'must list at least one event')
  .max(100)
  .meta({ items: { type: 'string', enum: [...EVENT_NAMES] } })
  .superRefine((names, ctx) => {
    const unknown = unknownEventNames(names);
    if (unknown.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unknown event names: ${unknown.join(', ')}` });
    }
  })
  .transform((names) => [...new Set(names)] as EventName[]);

/**
 * An absolute URL without credentials, normalized. Whether plain `http://` and private addresses
 * are allowed is the webhooks service's configuration (`ALLOW_PRIVATE_URLS`).
 */
export const WebhookUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .regex(HTTP_URL, { error: 'must be an absolute https:// URL' })
  // Plain http is for local development only (WEBHOOK_ALLOW_PRIVATE_URLS): the document says https.
  .meta({ pattern: HTTPS_URL_PATTERN })
  .transform((text, ctx) => {
    const url = URL.canParse(text) ? new URL(text) : undefined;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute https:// URL' });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
      return z.NEVER;
    }
    url.hash = '';
    return url.href;
  });

const WebhookNameSchema = z.string().trim().min(1).max(200);

export const CreateWebhookRequestSchema = z.object({
  name: WebhookNameSchema,
  url: WebhookUrlSchema,
  events: WebhookEventsSchema,
});
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;

/** Any of name, url and events; the others keep their values. */
export const UpdateWebhookRequestSchema = z
  .object({
    name: WebhookNameSchema.optional(),
    url: WebhookUrlSchema.optional(),
    events: WebhookEventsSchema.optional(),
  })
  .meta({ anyOf: [{ required: ['name'] }, { required: ['url'] }, { required: ['events'] }] })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give at least one of name, url, events',
  });
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequestSchema>;

export const TestWebhookRequestSchema = z.object({
  /** One of the webhook's subscribed events; the first subscribed one when left out. */
  event: EventNameSchema.optional(),
});
export type TestWebhookRequest = z.infer<typeof TestWebhookRequestSchema>;

export const WebhookIdParamsSchema = z.object({ id: z.coerce.number().int().positive() });
export const DeliveryLogParamsSchema = z.object({
  id: z.coerce.number().int().positive(),
  log_id: z.string().min(1).max(100),
});

export const MAX_LOGS_PER_PAGE = 100;
export const DEFAULT_LOGS_PER_PAGE = 20;
export const DeliveryLogsQuerySchema = z.object({
  ...pageQuery({ max: MAX_LOGS_PER_PAGE, defaultPerPage: DEFAULT_LOGS_PER_PAGE }),
  state: DeliveryLogStateSchema.optional(),
});
export const MAX_WEBHOOKS_PER_PAGE = 1000;
export const ListWebhooksQuerySchema = z.object(pageQuery({ max: MAX_WEBHOOKS_PER_PAGE }));
export type DeliveryLogsQuery = z.infer<typeof DeliveryLogsQuerySchema>;

export const WebhookSchema = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  url: z.string(),
  events: z.array(EventNameSchema),
  active: z.boolean(),
  /** In full (`whsec_` + base64) only when created or rotated; afterwards masked, `whsec_…` + last 4. */
  secret: z.string().startsWith(WEBHOOK_SECRET_PREFIX),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

/** The body a receiver got, as JSON: the published event envelope. */
const SentPayloadSchema = z.object({
  event: EventNameSchema,
  timestamp: timestamp(),
  data: z.record(z.string(), z.unknown()),
});

/** The published delivery log row, one row per attempt (or per pending attempt that a pause or delete stopped). */
export const DeliveryLogSchema = z.object({
  id: z.string(),
  delivery_id: z.string(),
  /** The `X-Webhook-Id` (and `webhook-id`) header: the same for every attempt and redelivery. */
  event_id: z.string(),
  event: EventNameSchema,
  payload: SentPayloadSchema,
  response_status: z.number().int().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  /** `<n> / <max>`, e.g. `2 / 3`. */
  attempt: z.string().regex(/^\d+ \/ \d+$/),
  state: DeliveryLogStateSchema,
  created_at: timestamp(),
  duration_ms: z.number().int().min(0).nullable(),
});
export type DeliveryLog = z.infer<typeof DeliveryLogSchema>;

export const WebhookResponseSchema = successResponse({ webhook: WebhookSchema });
export type WebhookResponse = z.infer<typeof WebhookResponseSchema>;

export const WebhookListResponseSchema = successResponse({
  webhooks: z.array(WebhookSchema),
  meta: PageMetaSchema,
});
export type WebhookListResponse = z.infer<typeof WebhookListResponseSchema>;

export const DeleteWebhookResponseSchema = successResponse({
  id: z.number().int().positive(),
  deleted: z.literal(true),
});
export type DeleteWebhookResponse = z.infer<typeof DeleteWebhookResponseSchema>;

export const DeliveryLogListResponseSchema = successResponse({
  logs: z.array(DeliveryLogSchema),
  meta: PageMetaSchema,
  /** The older names of meta.page, meta.per_page and meta.total, and whether a next page exists. */
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  has_more: z.boolean(),
});
export type DeliveryLogListResponse = z.infer<typeof DeliveryLogListResponseSchema>;

export const TestWebhookResponseSchema = successResponse({ log: DeliveryLogSchema });
export type TestWebhookResponse = z.infer<typeof TestWebhookResponseSchema>;

export const RedeliverResponseSchema = successResponse({
  delivery: z.object({
    id: z.string(),
    webhook_id: z.number().int().positive(),
    event_id: z.string(),
    event: EventNameSchema,
  }),
});
export type RedeliverResponse = z.infer<typeof RedeliverResponseSchema>;

const tags = ['webhooks'] as const;
const withId = { params: WebhookIdParamsSchema };

export const WEBHOOK_OPERATIONS = [
  defineOperation({
    owner: 'webhooks',
    method: 'post',
    path: '/developer/webhooks',
    operationId: 'createWebhook',
    summary: 'Create a webhook; the answer shows its signing secret in full, this once',
    tags,
    auth: 'token',
    request: { body: CreateWebhookRequestSchema },
    responses: { 201: WebhookResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'get',
    path: '/developer/webhooks',
    operationId: 'listWebhooks',
    summary: "List the organization's webhooks, secrets masked",
    tags,
    auth: 'token',
    request: { query: ListWebhooksQuerySchema },
    responses: { 200: WebhookListResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'get',
    path: '/developer/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'Read one webhook, secret masked',
    tags,
    auth: 'token',
    request: withId,
    responses: { 200: WebhookResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'put',
    path: '/developer/webhooks/{id}',
    operationId: 'updateWebhook',
    summary: 'Change the name, url or events of a webhook',
    tags,
    auth: 'token',
    request: { ...withId, body: UpdateWebhookRequestSchema },
    responses: { 200: WebhookResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'delete',
    path: '/developer/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook, everything pending for it and its delivery logs',
    tags,
    auth: 'token',
    request: withId,
    responses: { 200: DeleteWebhookResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'post',
    path: '/developer/webhooks/{id}/toggle',
    operationId: 'toggleWebhook',
    summary: 'Pause an active webhook or activate a paused one; answers the new state',
    description:
      'Pausing stops pending retries and queues nothing for events that happen while paused.',
    tags,
    auth: 'token',
    request: withId,
    responses: { 200: WebhookResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'post',
    path: '/developer/webhooks/{id}/test',
    operationId: 'testWebhook',
    summary: 'Deliver a sample of one subscribed event now and answer with the attempt',
    description:
      'The body is optional; `event` defaults to the first subscribed event. The delivery is ' +
      'logged, and retried when it fails with a 5xx or a connection error, like any other.',
    tags,
    auth: 'token',
    request: { ...withId, body: TestWebhookRequestSchema },
    responses: { 200: TestWebhookResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'post',
    path: '/developer/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret; the answer shows the new one in full, this once',
    tags,
    auth: 'token',
    request: withId,
    responses: { 200: WebhookResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'get',
    path: '/developer/webhooks/{id}/logs',
    operationId: 'listWebhookLogs',
    summary: 'Delivery attempts, newest first, paged',
    tags,
    auth: 'token',
    request: { ...withId, query: DeliveryLogsQuerySchema },
    responses: { 200: DeliveryLogListResponseSchema },
  }),
  defineOperation({
    owner: 'webhooks',
    method: 'post',
    path: '/developer/webhooks/{id}/logs/{log_id}/redeliver',
    operationId: 'redeliverWebhookLog',
    summary: 'Queue a fresh delivery of the same event, with the same X-Webhook-Id',
    tags,
    auth: 'token',
    request: { params: DeliveryLogParamsSchema },
    responses: { 202: RedeliverResponseSchema },
  }),
];
