import { BrokerEventSchema, QUEUES, type BrokerEvent } from '@switchboard/contracts';
import type { Broker } from '@switchboard/service-kit';
import type { CampaignsDeps } from '../../domain/dependencies';
import { recordProgress } from '../../domain/record-progress';

/** `campaigns.events`: message_sent, message_failed and message_status_updated → progress. */
export async function consumeProgressEvents(
  broker: Broker,
  deps: CampaignsDeps,
  prefetch: number,
): Promise<void> {
  await broker.consume<BrokerEvent>(
    QUEUES.campaignsEvents,
    async (event) => recordProgress(deps, event),
    { schema: BrokerEventSchema, prefetch },
  );
}
