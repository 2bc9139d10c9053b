import {
  BrokerEventMessageSchema,
  QUEUES,
  brokerEventsOf,
  type BrokerEventMessage,
} from '@switchboard/contracts';
import { handleAll, type Broker, type ServiceMetrics } from '@switchboard/service-kit';
import { Counter } from 'prom-client';
import {
  answerInboundMessage,
  type AutomationDeps,
} from '../../../domain/automation/answer-inbound-message';

/**
 * `campaigns.automation`: every `message_received` → at most one automated answer (each event of
 * a batch message as a lone one; the batch acked once all are answered).
 */
export async function consumeInboundForAutomation(
  broker: Broker,
  deps: AutomationDeps,
  prefetch: number,
  metrics: ServiceMetrics,
): Promise<void> {
  const outcomes = new Counter({
    name: 'switchboard_automated_answers_total',
    help: 'Inbound messages by what automation did (answered, no_answer, rate_limited, quota_exhausted, …)',
    labelNames: ['outcome'] as const,
    registers: [metrics.registry],
  });
  await broker.consume<BrokerEventMessage>(
    QUEUES.campaignsAutomation,
    (message) =>
      handleAll(
        brokerEventsOf(message).map(async (event) => {
          outcomes.inc({ outcome: await answerInboundMessage(deps, event) });
        }),
      ),
    { schema: BrokerEventMessageSchema, prefetch },
  );
}
