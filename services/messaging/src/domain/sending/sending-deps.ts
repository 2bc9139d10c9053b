import type { EventRelay, Logger, QuotaCounter } from '@switchboard/service-kit';
import type { ConversationStore } from '../../data-access/conversation-store';
import type { IdempotencyStore } from '../../data-access/idempotency-store';
import type { MessageStore } from '../../data-access/message-store';
import type { TemplateStore } from '../../data-access/template-store';
import type { CloudApi } from '../../outbound/cloud-api';
import type { ContactsClient } from '../../outbound/contacts-client';
import type { ChannelDirectory } from '../channel-directory';
import type { KeyedLock } from '../keyed-lock';
import type { EventIds } from '../message-events';
import type { Pacing, RetryPolicy } from './deliver-to-provider';

/** What the sender works with; each step of a send takes the part it needs. */
export interface SendingDeps {
  nextMessageId(): Promise<number>;
  messages: MessageStore;
  conversations: ConversationStore;
  /** The monthly message quota. */
  quotas: QuotaCounter;
  idempotency: IdempotencyStore;
  templates: Pick<TemplateStore, 'find'>;
  channels: ChannelDirectory;
  cloudApi: CloudApi;
  contacts: ContactsClient;
  relay: EventRelay;
  eventIds: EventIds;
  /** One finalization or status change per message at a time in this process. */
  lock: KeyedLock;
  pacing: Pacing;
  retry: RetryPolicy;
  /** How long a send may run before another attempt may take it over. */
  leaseMs: number;
  logger: Logger;
}
