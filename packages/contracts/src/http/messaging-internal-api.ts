import { z } from 'zod';
import { successResponse } from '../envelope';

/** Numeric Graph ids (phone number, WABA) are strings of digits. */
export const GraphIdSchema = z.string().regex(/^[0-9]{1,30}$/, 'must be a numeric id');

/** What an organization's admin needs to point the provider's webhook at us, shown at creation. */
export const ChannelSummarySchema = z.object({
  inbound_url: z.string().url(),
  verify_token: z.string(),
  app_secret: z.string(),
  phone_number_id: GraphIdSchema,
  display_phone_number: z.string(),
});
export type ChannelSummary = z.infer<typeof ChannelSummarySchema>;

/** POST /internal/channels: gateway → messaging, when an organization is created. Idempotent per company. */
export const ProvisionChannelRequestSchema = z.object({
  company_id: z.number().int().positive(),
  name: z.string().min(1).max(200),
});
export type ProvisionChannelRequest = z.infer<typeof ProvisionChannelRequestSchema>;
export const ProvisionChannelResponseSchema = successResponse({ channel: ChannelSummarySchema });
export type ProvisionChannelResponse = z.infer<typeof ProvisionChannelResponseSchema>;

/**
 * PUT /admin/organizations/{company_id}/channel (gateway) → PUT /internal/channels/{company_id}
 * (messaging): points a channel at Meta (`https://graph.facebook.com`) or any Cloud API server.
 */
export const UpdateChannelRequestSchema = z
  .object({
    provider_base_url: z.string().url().max(500),
    api_version: z.string().regex(/^v[0-9]{1,3}\.0$/, 'must look like v24.0'),
    phone_number_id: GraphIdSchema,
    waba_id: GraphIdSchema,
    access_token: z.string().min(1).max(1000),
    app_secret: z.string().min(1).max(500),
    verify_token: z.string().min(1).max(500),
    display_phone_number: z.string().max(30),
  })
  .partial()
  .meta({ minProperties: 1 })
  .refine((value) => Object.keys(value).length > 0, 'at least one field must be given');
export type UpdateChannelRequest = z.infer<typeof UpdateChannelRequestSchema>;

/** The channel as the admin API shows it after an update: no secret is echoed back. */
export const ChannelViewSchema = z.object({
  company_id: z.number().int().positive(),
  provider_base_url: z.string(),
  api_version: z.string(),
  phone_number_id: GraphIdSchema,
  waba_id: GraphIdSchema,
  display_phone_number: z.string(),
  inbound_url: z.string().url(),
});
export type ChannelView = z.infer<typeof ChannelViewSchema>;
export const UpdateChannelResponseSchema = successResponse({ channel: ChannelViewSchema });
export type UpdateChannelResponse = z.infer<typeof UpdateChannelResponseSchema>;

/** GET /internal/channels/by-inbound-token/{token}: inbound → messaging, to attribute and verify a webhook. */
export const InboundChannelSchema = z.object({
  company_id: z.number().int().positive(),
  app_secret: z.string(),
  verify_token: z.string(),
  phone_number_id: GraphIdSchema,
  waba_id: GraphIdSchema,
});
export type InboundChannel = z.infer<typeof InboundChannelSchema>;
export const InboundChannelResponseSchema = successResponse({ channel: InboundChannelSchema });
export type InboundChannelResponse = z.infer<typeof InboundChannelResponseSchema>;

/**
 * POST /internal/conversations/needs-human: campaigns → messaging, when a flow's hand-over step or
 * the AI bot hands a contact over to a person. Idempotent; 404 when the contact has no conversation.
 */
export const NeedsHumanRequestSchema = z.object({
  company_id: z.number().int().positive(),
  contact_id: z.number().int().positive(),
});
export type NeedsHumanRequest = z.infer<typeof NeedsHumanRequestSchema>;
