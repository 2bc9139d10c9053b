import {
  ProviderQueueMessageSchema,
  QUEUES,
  ROUTING_KEYS,
  providerEventsOf,
  type ProviderEventMessage,
  type ProviderQueueMessage,
} from '@switchboard/contracts';
import {
  PermanentError,
  createBatcher,
  handleAll,
  type Broker,
  type Logger,
} from '@switchboard/service-kit';
import { noteAccountChange, type NoticeDeps } from '../../domain/receiving/account-notices';
import { receiveMessages, type ReceivingDeps } from '../../domain/receiving/receive-messages';
import { recordStatusBatch } from '../../domain/receiving/record-status-batch';
import type { StatusDeps } from '../../domain/receiving/record-statuses';
import {
  noteTemplateChange,
  type TemplateNoticeDeps,
} from '../../domain/templates/template-notices';

export type ProviderEventDeps = ReceivingDeps &
  StatusDeps &
  NoticeDeps &
  TemplateNoticeDeps & { logger: Logger };

/** How long a status waits for others to be recorded with it when the consumer is idle. */
const STATUS_GATHER_MS = 5;

/**
 * `messaging.provider-events` (ARCHITECTURE §6): what inbound accepted from the provider. Every
 * handler is idempotent, so a redelivered message changes nothing; a failure (contacts down, a
 * status ahead of its send) goes to the retry queue, and after its attempts to `*.dead`.
 * Statuses, most of the traffic (three per send), are recorded in batches of up to `prefetch`,
 * one batch at a time so that a message's statuses keep their order; each message is still acked,
 * retried or parked on its own outcome. Inbound sends statuses that arrived together as one
 * batch message (a lone one as a plain event): the batch is acked once all of its statuses are
 * recorded, and otherwise retried whole (recording is idempotent, so those already recorded
 * change nothing the second time) or, when only statuses that can never be recorded are left,
 * parked whole.
 */
export async function consumeProviderEvents(
  broker: Broker,
  deps: ProviderEventDeps,
  prefetch: number,
): Promise<void> {
  const statuses = createBatcher<ProviderEventMessage, undefined>({
    maxItems: prefetch,
    maxWaitMs: STATUS_GATHER_MS,
    run: (events) => recordStatusBatch(deps, events),
  });
  await broker.consume<ProviderQueueMessage>(
    QUEUES.messagingProviderEvents,
    async (body, context) => {
      const events = providerEventsOf(body);
      if (context.routingKey === ROUTING_KEYS.provider.status) {
        return handleAll(events.map((event) => statuses.add(event)));
      }
      if (events.length !== 1) {
        throw new PermanentError(`a batch of provider events on ${context.routingKey}`);
      }
      const event = events[0]!;
      switch (context.routingKey) {
        case ROUTING_KEYS.provider.message:
          return receiveMessages(deps, event);
        case ROUTING_KEYS.provider.accountUpdate:
        case ROUTING_KEYS.provider.phoneNumberNameUpdate:
          return noteAccountChange(deps, event);
        case ROUTING_KEYS.provider.templateStatus:
          return noteTemplateChange(deps, event);
        default:
          deps.logger.warn(
            { routingKey: context.routingKey },
            'provider event with an unknown key',
          );
      }
    },
    { schema: ProviderQueueMessageSchema, prefetch },
  );
}
