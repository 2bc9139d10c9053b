/** What the simulator remembers, all in memory. Field names follow the wire where they mirror it. */

export type TemplateStatus =
  | 'APPROVED'
  | 'PENDING'
  | 'REJECTED'
  | 'PAUSED'
  | 'DISABLED'
  | 'IN_APPEAL'
  | 'PENDING_DELETION'
  | 'DELETED'
  | 'LIMIT_EXCEEDED'
  | 'ARCHIVED';

export interface TemplateRecord {
  id: string;
  waba_id: string;
  name: string;
  language: string;
  category: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';
  sub_category?: string;
  /** The provider's quality score of the template, once it reported one. */
  quality_score?: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN';
  parameter_format: 'POSITIONAL' | 'NAMED';
  /** Exactly as created: upper-case component types. */
  components: Record<string, unknown>[];
  status: TemplateStatus;
  rejected_reason: string;
  created_at: number;
}

export interface MediaRecord {
  id: string;
  phone_number_id: string;
  mime_type: string;
  sha256: string;
  file_size: number;
  data: Buffer;
  filename?: string;
  created_at: number;
}

export interface StatusEntry {
  status: 'sent' | 'delivered' | 'read' | 'failed';
  timestamp: string;
  error_code?: number;
}

/** One call to `POST /{phone_number_id}/messages`, accepted or not, newest last. */
export interface SentRecord {
  seq: number;
  received_at: string;
  phone_number_id: string;
  kind: 'message' | 'mark_read';
  /** The request body exactly as parsed, and the raw text it came in. */
  request: unknown;
  raw_body: string;
  accepted: boolean;
  response_status: number;
  response_body: unknown;
  to?: string;
  wa_id?: string;
  type?: string;
  wamid?: string;
  template?: { name: string; language: string; category: string };
  /** A read receipt's message and whether it asked for a typing indicator. */
  read_receipt?: { message_id: string; typing: boolean };
  statuses: StatusEntry[];
}

/** A message a user sent to the business (what read receipts and reactions may name). */
export interface InboundRecord {
  wamid: string;
  phone_number_id: string;
  wa_id: string;
  type: string;
  received_at: number;
}

export interface WebhookAttempt {
  at: string;
  status?: number;
  response_body?: string;
  error?: string;
  duration_ms: number;
}

/** One webhook the simulator posted (with every attempt), newest last. */
export interface WebhookRecord {
  id: number;
  created_at: string;
  url: string;
  field: string;
  waba_id: string;
  phone_number_id?: string;
  payload: unknown;
  raw_body: string;
  signature: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: WebhookAttempt[];
}

export interface WabaState {
  id: string;
  name: string;
  account_review_status: 'APPROVED' | 'PENDING' | 'REJECTED' | 'DEFERRED';
  business_verification_status: string;
}
