import type { Connection } from 'mongoose';
import { dropFormerOutboxIndex, dropIfUnique, outboxSource } from '@switchboard/service-kit';
import { findMessageById, messagesModel } from './messages/message-documents';
import { messageReads } from './messages/message-reads';
import { receivedWrites } from './messages/received-writes';
import { sendWrites } from './messages/send-writes';
import { statusWrites } from './messages/status-writes';
import { createWamidKeys } from './messages/wamid-keys';

export {
  hasRealWamid,
  pendingWamid,
  type DeliveryStatus,
  type Direction,
  type HistoryEntry,
  type NewMessage,
  type StoredMessage,
} from './messages/message-documents';
export type { BlindMove, SentStatus, StatusChange } from './messages/status-writes';

/**
 * The messages, sent and received, and their wamid keys. Each concern is a module of its own
 * under `messages/`: the documents and their indexes, the wamid keys, reads, the writes of a
 * send, of a received message and of provider statuses; this composes them into one store.
 */
export function createMessageStore(db: Connection) {
  const Messages = messagesModel(db);
  const wamidKeys = createWamidKeys(db, findMessageById(Messages));
  return {
    async init() {
      await dropIfUnique(Messages.collection, 'wamid_1');
      await dropFormerOutboxIndex(Messages.collection);
      await Promise.all([Messages.init(), wamidKeys.init()]);
    },
    outbox: outboxSource('messages', Messages),
    rememberWamid: wamidKeys.remember,
    ...messageReads(Messages, wamidKeys),
    ...sendWrites(Messages, wamidKeys),
    ...receivedWrites(Messages, wamidKeys),
    ...statusWrites(Messages),
  };
}

export type MessageStore = ReturnType<typeof createMessageStore>;
