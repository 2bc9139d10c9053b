import { z } from 'zod';
import type { EventName } from './event-names';

// The `data` object of each event, exactly as the published payloads list it: unknown keys are rejected so
// that a contract test catches a producer drifting from the spec.
const id = () => z.number().int();
const timestamp = () => z.iso.datetime({ offset: true });

/** The kinds of inbound media a contact can send, as the provider names them. */
export const INBOUND_MEDIA_TYPES = ['image', 'audio', 'video', 'document', 'sticker'] as const;
export type InboundMediaType = (typeof INBOUND_MEDIA_TYPES)[number];

/**
 * Where an inbound file stands: being fetched from the provider, kept and served (`available`),
 * refused for its size, not obtainable from the provider, or deleted by the retention job.
 */
export const INBOUND_MEDIA_STATUSES = [
  'pending',
  'available',
  'too_large',
  'failed',
  'expired',
] as const;
export type InboundMediaStatus = (typeof INBOUND_MEDIA_STATUSES)[number];

/**
 * The file a contact sent with a message. `url` is the authenticated operation that serves its
 * bytes (call it with the organization's token); it is null unless `status` is `available`.
 */
export const MediaDescriptorSchema = z.strictObject({
  type: z.enum(INBOUND_MEDIA_TYPES),
  mime_type: z.string(),
  /** Bytes; null until known (the provider reports it when the file is fetched). */
  size: z.number().int().nonnegative().nullable(),
  url: z.string().nullable(),
  status: z.enum(INBOUND_MEDIA_STATUSES),
  /** The name a document was sent with; null for other media. */
  filename: z.string().nullable(),
  /** SHA-256 of the bytes (hex), as the provider states it. */
  sha256: z.string().nullable(),
});
export type MediaDescriptor = z.infer<typeof MediaDescriptorSchema>;

export const MessageReceivedDataSchema = z.strictObject({
  message_id: id(),
  message_wamid: z.string(),
  contact_id: id(),
  contact_name: z.string(),
  phone: z.string(),
  message: z.string(),
  message_type: z.string(),
  company_id: id(),
  /**
   * Beside the spec's fields, only on a message carrying a file (image, audio, video, document,
   * sticker): what the file is and where the organization fetches it. A text message's payload
   * is exactly the spec's.
   */
  media: MediaDescriptorSchema.optional(),
});
export type MessageReceivedData = z.infer<typeof MessageReceivedDataSchema>;

export const MessageSentDataSchema = z.strictObject({
  message_id: id(),
  message_wamid: z.string(),
  contact_id: id(),
  phone: z.string(),
  company_id: id(),
});
export type MessageSentData = z.infer<typeof MessageSentDataSchema>;

export const MessageFailedDataSchema = z.strictObject({
  message_id: id(),
  contact_id: id(),
  phone: z.string(),
  error: z.string(),
  company_id: id(),
});
export type MessageFailedData = z.infer<typeof MessageFailedDataSchema>;

export const MESSAGE_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export const MessageStatusSchema = z.enum(MESSAGE_STATUSES);
export type MessageStatus = z.infer<typeof MessageStatusSchema>;

export const MessageStatusUpdatedDataSchema = z.strictObject({
  message_id: id(),
  message_wamid: z.string(),
  status: MessageStatusSchema,
  error: z.string().nullable(),
  contact_id: id(),
  company_id: id(),
});
export type MessageStatusUpdatedData = z.infer<typeof MessageStatusUpdatedDataSchema>;

export const CampaignStartedDataSchema = z.strictObject({
  id: id(),
  name: z.string(),
  total_contacts: id(),
  created_at: timestamp(),
});
export type CampaignStartedData = z.infer<typeof CampaignStartedDataSchema>;

export const CampaignCompletedDataSchema = z.strictObject({
  id: id(),
  name: z.string(),
  total_contacts: id(),
  completed_at: timestamp(),
});
export type CampaignCompletedData = z.infer<typeof CampaignCompletedDataSchema>;

export const AccountStatusUpdatedDataSchema = z.strictObject({
  decision: z.string(),
  account_status: z.string(),
  company_id: id(),
});
export type AccountStatusUpdatedData = z.infer<typeof AccountStatusUpdatedDataSchema>;

export const PhoneNumberNameUpdatedDataSchema = z.strictObject({
  decision: z.string(),
  phone_number: z.string(),
  requested_name: z.string(),
  rejection_reason: z.string().nullable(),
  company_id: id(),
});
export type PhoneNumberNameUpdatedData = z.infer<typeof PhoneNumberNameUpdatedDataSchema>;

// Reserved events (the published event catalog): the spec shows no payload. These shapes are PROVISIONAL, our own
// choice, and may change before emitting them is enabled.

/** Provisional: the spec does not define this payload. */
export const ContactCreatedDataSchema = z.strictObject({
  contact_id: id(),
  name: z.string(),
  phone: z.string(),
  email: z.string().nullable(),
  company_id: id(),
});
export type ContactCreatedData = z.infer<typeof ContactCreatedDataSchema>;

/** Provisional: the spec does not define this payload. */
export const ContactUpdatedDataSchema = ContactCreatedDataSchema;
export type ContactUpdatedData = z.infer<typeof ContactUpdatedDataSchema>;

/** Provisional: the spec does not define this payload. */
export const TemplateApprovedDataSchema = z.strictObject({
  template_id: id(),
  template_name: z.string(),
  template_language: z.string(),
  reason: z.string().nullable(),
  company_id: id(),
});
export type TemplateApprovedData = z.infer<typeof TemplateApprovedDataSchema>;

/** Provisional: the spec does not define this payload. */
export const TemplateRejectedDataSchema = TemplateApprovedDataSchema;
export type TemplateRejectedData = z.infer<typeof TemplateRejectedDataSchema>;

export const EVENT_PAYLOAD_SCHEMAS = {
  message_received: MessageReceivedDataSchema,
  message_sent: MessageSentDataSchema,
  message_failed: MessageFailedDataSchema,
  message_status_updated: MessageStatusUpdatedDataSchema,
  campaign_started: CampaignStartedDataSchema,
  campaign_completed: CampaignCompletedDataSchema,
  account_status_updated: AccountStatusUpdatedDataSchema,
  phone_number_name_updated: PhoneNumberNameUpdatedDataSchema,
  contact_created: ContactCreatedDataSchema,
  contact_updated: ContactUpdatedDataSchema,
  template_approved: TemplateApprovedDataSchema,
  template_rejected: TemplateRejectedDataSchema,
} as const satisfies { [E in EventName]: z.ZodType };

/** The `data` type of one event, e.g. `EventData<'message_sent'>`. */
export type EventData<E extends EventName> = z.infer<(typeof EVENT_PAYLOAD_SCHEMAS)[E]>;
