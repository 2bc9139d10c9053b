import { randomUUID } from 'node:crypto';
import { BrokerEventSchema, type BrokerEvent, type EventName } from '@switchboard/contracts';
import { sampleEnvelope } from '../../src/domain/sample-events';

/** A valid `svc.events` message for `event`, its data the sample with that company id. */
export function brokerEvent(
  event: EventName,
  companyId: number,
  data: Record<string, unknown> = {},
): BrokerEvent {
  const envelope = sampleEnvelope(event, companyId, new Date());
  return BrokerEventSchema.parse({
    id: randomUUID(),
    event,
    timestamp: new Date().toISOString().replace('Z', '+00:00'),
    company_id: companyId,
    data: { ...envelope.data, ...data },
  });
}
