export { DEFAULT_RECONNECT_DELAY_MS, reconnectDelayMs, type DelayRange } from './backoff';
export { assertTopology, declareTopology } from './assert-topology';
export { MIGRATION_LOCK_QUEUE, migratingQueueFor } from './quorum-migration';
export { Broker } from './broker';
export { eventBatchPublisher, eventPublisher, planEventMessages } from './event-publisher';
export { handleAll } from './handle-all';
export { PermanentError, PublishError, RetryLaterError, type PublishFailureKind } from './errors';
export type {
  BrokerEvents,
  BrokerOptions,
  ConsumeOptions,
  MessageContext,
  MessageHandler,
  MessageOutcome,
  PublishOptions,
} from './types';
