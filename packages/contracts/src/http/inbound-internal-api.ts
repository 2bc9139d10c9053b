import { z } from 'zod';
import { ErrorResponseSchema, successResponse } from '../envelope';

/**
 * POST /internal/webhooks/receive-batch: gateway → inbound. The provider's webhooks that reached
 * the gateway together, sent on in one request instead of one each; inbound verifies and stores
 * each as its own POST /webhook/svc/receive/{token} would, and answers one status per webhook, in
 * order. Internal: only ever called with the internal secret, never reachable from the edge.
 */
export const RECEIVE_BATCH_PATH = '/internal/webhooks/receive-batch';
/** The most webhooks in one batch. */
export const RECEIVE_BATCH_MAX_ITEMS = 64;
/** The largest webhook a batch carries (its raw bytes); a longer one goes on alone. */
export const RECEIVE_BATCH_MAX_WEBHOOK_BYTES = 16 * 1024;
/** The largest webhook in base64, as a batch carries it. */
const MAX_WEBHOOK_BASE64 = Math.ceil(RECEIVE_BATCH_MAX_WEBHOOK_BYTES / 3) * 4;
/** The largest batch request: every webhook at its largest, in base64, with room for the rest. */
export const RECEIVE_BATCH_MAX_BYTES = RECEIVE_BATCH_MAX_ITEMS * (MAX_WEBHOOK_BASE64 + 1024);

/** A webhook's channel token, as the receive path carries it. */
export const WebhookTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a token');

export const ReceiveBatchItemSchema = z.object({
  /** The token of the path the provider posted to. */
  token: WebhookTokenSchema,
  /** The provider's `x-hub-signature-256` header as it came (absent: none was sent). */
  signature: z.string().max(1000).optional(),
  /** The webhook's raw bytes, in base64: the signature covers exactly them. */
  body: z.base64().max(MAX_WEBHOOK_BASE64),
});
export type ReceiveBatchItem = z.infer<typeof ReceiveBatchItemSchema>;

export const ReceiveBatchRequestSchema = z.object({
  webhooks: z.array(ReceiveBatchItemSchema).min(1).max(RECEIVE_BATCH_MAX_ITEMS),
});
export type ReceiveBatchRequest = z.infer<typeof ReceiveBatchRequestSchema>;

/** One webhook's answer: the status and body its own request would have been answered with. */
export const ReceiveBatchResultSchema = z.union([
  z.object({ status: z.literal(200), body: successResponse({}) }),
  z.object({ status: z.number().int().min(400).max(599), body: ErrorResponseSchema }),
]);
export type ReceiveBatchResult = z.infer<typeof ReceiveBatchResultSchema>;

export const ReceiveBatchResponseSchema = successResponse({
  results: z.array(ReceiveBatchResultSchema).max(RECEIVE_BATCH_MAX_ITEMS),
});
export type ReceiveBatchResponse = z.infer<typeof ReceiveBatchResponseSchema>;
