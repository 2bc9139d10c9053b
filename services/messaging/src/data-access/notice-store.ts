import { Schema, type Connection } from 'mongoose';
import type { OutboxFields } from '@switchboard/service-kit';
import {
  dropFormerOutboxIndex,
  indexOutbox,
  newOutbox,
  outboxSchemaFields,
  outboxSource,
  isDuplicateKeyError,
} from '@switchboard/service-kit';
import type { BrokerEvent } from '@switchboard/contracts';

/**
 * An account-level provider notice (account review, display name): kept once per provider
 * message, with the events it causes, so a redelivery changes nothing.
 */
export interface StoredNotice extends OutboxFields {
  /** The provider message id (deterministic per webhook change). */
  _id: string;
  company_id: number;
  field: string;
  value_json: string;
  received_at: Date;
}

const noticeSchema = new Schema<StoredNotice>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    field: { type: String, required: true },
    value_json: { type: String, required: true },
    received_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'provider_notices', versionKey: false, minimize: false },
);
indexOutbox(noticeSchema);

export function createNoticeStore(db: Connection) {
  const Notices = db.model<StoredNotice>('ProviderNotice', noticeSchema);
  return {
    async init() {
      await dropFormerOutboxIndex(Notices.collection);
      await Notices.init();
    },
    outbox: outboxSource('provider_notices', Notices),

    async insertOnce(
      notice: Omit<StoredNotice, 'pending_events' | 'pending_ids'>,
      events: BrokerEvent[],
    ): Promise<'inserted' | 'duplicate'> {
      try {
        await Notices.create({ ...notice, ...newOutbox(events) });
        return 'inserted';
      } catch (error) {
        if (isDuplicateKeyError(error)) return 'duplicate';
        throw error;
      }
    },
  };
}

export type NoticeStore = ReturnType<typeof createNoticeStore>;
