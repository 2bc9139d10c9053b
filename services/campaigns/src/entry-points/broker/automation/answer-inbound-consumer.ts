import { BrokerEventSchema, QUEUES, type BrokerEvent } from '@switchboard/contracts';
import type { Broker, ServiceMetrics } from '@switchboard/service-kit';
import { Counter } from 'prom-client';
import {
  answerInboundMessage,
  type AutomationDeps,
} from '../../../domain/automation/answer-inbound-message';

/** `campaigns.automation`: every `message_received` → at most one automated answer. */
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
  await broker.consume<BrokerEvent>(
    QUEUES.campaignsAutomation,
    async (event) => {
      outcomes.inc({ outcome: await answerInboundMessage(deps, event) });
    },
    { schema: BrokerEventSchema, prefetch },
  );
}
