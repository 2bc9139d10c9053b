import {
  BrokerEventMessageSchema,
  QUEUES,
  brokerEventsOf,
  type BrokerEvent,
  type BrokerEventMessage,
} from '@switchboard/contracts';
import { createBatcher, handleAll, type Broker } from '@switchboard/service-kit';
import type { CampaignsDeps } from '../../../domain/campaigns/dependencies';
import { createProgressRecorder } from '../../../domain/campaigns/record-progress';

/** How long an event waits for others to be recorded with it when the consumer is idle. */
const PROGRESS_GATHER_MS = 5;

/**
 * `campaigns.events`: message_sent, message_failed and message_status_updated of campaigns'
 * messages → progress (a direct send's are routed elsewhere; one published by an older messaging
 * without that routing carries no `campaign_id` and is skipped),
 * recorded in batches of up to `prefetch` (four events per recipient of a campaign), one batch
 * at a time so that a recipient's events keep their order; each delivery is still acked,
 * retried or parked on its own outcome (a batch message once all of its events are recorded).
 */
export async function consumeProgressEvents(
  broker: Broker,
  deps: CampaignsDeps,
  prefetch: number,
): Promise<void> {
  const progress = createBatcher<BrokerEvent, undefined>({
    maxItems: prefetch,
    maxWaitMs: PROGRESS_GATHER_MS,
    run: createProgressRecorder(deps),
  });
  await broker.consume<BrokerEventMessage>(
    QUEUES.campaignsEvents,
    (message) => handleAll(brokerEventsOf(message).map((event) => progress.add(event))),
    { schema: BrokerEventMessageSchema, prefetch },
  );
}
