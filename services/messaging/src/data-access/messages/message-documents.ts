import { Schema, type Connection, type Model } from 'mongoose';
import type { MediaDescriptor, StoredMessageStatus } from '@switchboard/contracts';
import { indexOutbox, outboxSchemaFields, type OutboxFields } from '@switchboard/service-kit';

export type Direction = 'inbound' | 'outbound';
/** The statuses the provider reports and a message can reach. */
export type DeliveryStatus = 'sent' | 'delivered' | 'read' | 'failed';

export interface HistoryEntry {
  status: string;
  at: Date;
  /** False when the status arrived late or repeated and did not move the message. */
  applied: boolean;
}

export interface StoredMessage extends OutboxFields {
  /** `String(id)`: a string `_id` is the one lookup the local document database serves without a scan. */
  _id: string;
  id: number;
  company_id: number;
  contact_id: number;
  phone: string;
  direction: Direction;
  type: string;
  message: string;
  /** The provider's id; `pending:<id>` until the provider accepted an outbound message. */
  wamid: string;
  status: StoredMessageStatus;
  error: string | null;
  status_times: Partial<Record<DeliveryStatus, Date>>;
  history: HistoryEntry[];
  /** Provider statuses already recorded: a repeated webhook changes nothing (wamid + status). */
  statuses_seen: string[];
  /** The Cloud API body of an outbound message (JSON), so an interrupted send can be resumed. */
  request_json: string | null;
  /** The provider's message as received (JSON), for inbound messages. */
  raw_json: string | null;
  idempotency_key: string | null;
  /**
   * Sent for a broker command (a campaign's or an automated answer's): after a crash the command
   * comes back and takes the send over, however long the queue in front of it.
   */
  via_command?: boolean;
  campaign_id: number | null;
  /** The user (agent) who sent it from the console; absent or null for any other send. */
  sent_by_agent_id?: number | null;
  /** The month whose quota place this message holds (given back if the provider refuses it). */
  quota_month: string | null;
  /** A send in progress holds this lease; an expired lease lets a retry take the send over. */
  lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
  /** The file of an inbound image, audio, video, document or sticker, as getMessages shows it. */
  media?: MediaDescriptor;
  /**
   * The organization's number that sent or received it; absent on messages stored before
   * organizations had several numbers (those were the first number's).
   */
  phone_number_id?: string | null;
}

/** A message to store as it arrives (the store adds its `_id`, outbox and first statuses). */
export type NewMessage = Omit<
  StoredMessage,
  '_id' | 'pending_events' | 'pending_ids' | 'history' | 'statuses_seen' | 'status_times'
> &
  Partial<Pick<StoredMessage, 'history' | 'status_times'>>;

export const pendingWamid = (id: number) => `pending:${id}`;
export const hasRealWamid = (message: Pick<StoredMessage, 'wamid'>) =>
  !message.wamid.startsWith('pending:');

const messageSchema = new Schema<StoredMessage>(
  {
    _id: { type: String, required: true },
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    contact_id: { type: Number, required: true },
    phone: { type: String, required: true },
    direction: { type: String, enum: ['inbound', 'outbound'], required: true },
    type: { type: String, required: true },
    message: { type: String, default: '' },
    wamid: { type: String, required: true },
    status: { type: String, required: true },
    error: { type: String, default: null },
    status_times: { type: Schema.Types.Mixed, default: {} },
    history: { type: Schema.Types.Mixed, default: [] },
    statuses_seen: { type: [String], default: [] },
    request_json: { type: String, default: null },
    raw_json: { type: String, default: null },
    idempotency_key: { type: String, default: null },
    via_command: { type: Boolean },
    campaign_id: { type: Number, default: null },
    sent_by_agent_id: { type: Number, default: null },
    quota_month: { type: String, default: null },
    lease_until: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    media: { type: Schema.Types.Mixed, default: undefined },
    phone_number_id: { type: String, required: false },
    ...outboxSchemaFields,
  },
  { collection: 'messages', versionKey: false, minimize: false },
);
// Not unique: a unique index must start with the shard key (company_id, _id). A provider message
// is stored once however often it arrives through its `wamid_keys` entry (see `insert`).
messageSchema.index({ wamid: 1 });
messageSchema.index({ company_id: 1, contact_id: 1, id: -1 });
indexOutbox(messageSchema);
// The recovery job looks for sends left pending (equality on `status`, then the lease).
messageSchema.index({ status: 1, lease_until: 1 });

/** The messages collection. */
export type Messages = Model<StoredMessage>;
export const messagesModel = (db: Connection): Messages =>
  db.model<StoredMessage>('Message', messageSchema);

/** The message by its id, through its string `_id` (the one lookup served without a scan). */
export const findMessageById = (Messages: Messages) => (id: number) =>
  Messages.findById(String(id)).lean<StoredMessage>().exec();
