import {
  RECEIVE_BATCH_MAX_ITEMS,
  RECEIVE_BATCH_PATH,
  ReceiveBatchResponseSchema,
  type ReceiveBatchItem,
  type ReceiveBatchResult,
} from '@switchboard/contracts';
import { AppError, createBatcher } from '@switchboard/service-kit';
import type { ServiceProxy } from './service-proxy';

/**
 * The provider's webhooks on their way to inbound, many to one internal request: a webhook goes
 * at once when no batch is in flight, and those arriving while one is gather for the next, so an
 * idle gateway adds no wait and a busy one makes one exchange for many webhooks (three come for
 * every message sent). Each webhook's outcome is the answer inbound gave it after storing it (or
 * refusing it); a batch that fails as a whole (inbound unreachable, timed out, answering anything
 * but a batch of answers) fails each of its webhooks as a failed proxy would, with a 5xx the
 * provider retries.
 */
export function createInboundWebhookBatches(proxy: ServiceProxy) {
  const batches = createBatcher<ReceiveBatchItem, ReceiveBatchResult>({
    maxItems: RECEIVE_BATCH_MAX_ITEMS,
    maxWaitMs: 0,
    async run(webhooks) {
      const answer = await proxy.call<unknown>('inbound', {
        method: 'POST',
        url: RECEIVE_BATCH_PATH,
        data: { webhooks },
      });
      const parsed = ReceiveBatchResponseSchema.safeParse(answer.data);
      if (
        answer.status !== 200 ||
        !parsed.success ||
        parsed.data.results.length !== webhooks.length
      ) {
        throw new AppError('dependency_unavailable', 'The inbound service is unavailable');
      }
      return parsed.data.results;
    },
  });
  return {
    /** Resolves with this webhook's answer once inbound has stored (or refused) it. */
    receive(token: string, signature: string | undefined, rawBody: Buffer) {
      return batches.add({
        token,
        ...(signature === undefined ? {} : { signature }),
        body: rawBody.toString('base64'),
      });
    },
  };
}

export type InboundWebhookBatches = ReturnType<typeof createInboundWebhookBatches>;
