import { BrokerEventSchema, QUEUES, type BrokerEvent } from '@switchboard/contracts';
import type { Broker } from '@switchboard/service-kit';
import {
  answerInboundMessage,
  type AutomationDeps,
} from '../../domain/automation/answer-inbound-message';

/** `campaigns.automation`: every `message_received` → at most one automated answer (issue 8). */
export async function consumeInboundForAutomation(
  broker: Broker,
  deps: AutomationDeps,
  prefetch: number,
): Promise<void> {
  await broker.consume<BrokerEvent>(
    QUEUES.campaignsAutomation,
    async (event) => answerInboundMessage(deps, event),
    { schema: BrokerEventSchema, prefetch },
  );
}
