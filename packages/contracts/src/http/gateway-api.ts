import { z } from 'zod';
import { successResponse } from '../envelope';
import { PHONE_NUMBER_OPERATIONS } from './phone-numbers-api';
import { PlanSchema } from '../plans';
import type { ServiceName } from '../service-names';
import {
  ChannelSummarySchema,
  ChannelViewSchema,
  UpdateChannelRequestSchema,
} from './messaging-internal-api';
import { defineOperation } from './operation';
import {
  OrganizationOwnerSchema,
  PasswordSchema,
  UserEmailSchema,
  UserNameSchema,
} from './users-api';

export const CreateOrganizationRequestSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    plan: PlanSchema.default('free'),
    /** The organization's owner, who signs in to the console; without one it has no users yet. */
    owner_email: UserEmailSchema.optional(),
    /** The owner's password; without it the answer carries the owner's one-time invitation link. */
    owner_password: PasswordSchema.optional(),
    owner_name: UserNameSchema.optional(),
  })
  .refine((request) => request.owner_password === undefined || request.owner_email !== undefined, {
    message: 'owner_password needs owner_email',
    path: ['owner_password'],
  });
export type CreateOrganizationRequest = z.infer<typeof CreateOrganizationRequestSchema>;

export const OrganizationSchema = z.object({
  company_id: z.number().int().positive(),
  name: z.string(),
  plan: PlanSchema,
  plan_started_at: z.iso.datetime({ offset: true }),
});
export type Organization = z.infer<typeof OrganizationSchema>;

export const CreateOrganizationResponseSchema = successResponse({
  organization: OrganizationSchema,
  token: z.string(),
  token_id: z.string(),
  /** Where the provider must send webhooks, and the secrets to configure there; shown once. */
  channel: ChannelSummarySchema,
  /** Present when `owner_email` was given. */
  owner: OrganizationOwnerSchema.optional(),
});
export type CreateOrganizationResponse = z.infer<typeof CreateOrganizationResponseSchema>;

export const CreateTokenResponseSchema = successResponse({
  token: z.string(),
  token_id: z.string(),
});
export type CreateTokenResponse = z.infer<typeof CreateTokenResponseSchema>;

export const RevokeTokenResponseSchema = successResponse({
  token_id: z.string(),
  revoked: z.literal(true),
});
export type RevokeTokenResponse = z.infer<typeof RevokeTokenResponseSchema>;

export const MeResponseSchema = successResponse({ organization: OrganizationSchema });
export type MeResponse = z.infer<typeof MeResponseSchema>;

/** The gateway's internal API: services that own no organizations ask it for a plan. */
export const GATEWAY_INTERNAL_PATHS = {
  /** GET: one organization, by `company_id`; 404 when there is none. */
  organization: (company_id: number) => `/internal/organizations/${company_id}`,
} as const;

export const OrganizationResponseSchema = successResponse({ organization: OrganizationSchema });
export type OrganizationResponse = z.infer<typeof OrganizationResponseSchema>;

export const CompanyIdParamsSchema = z.object({ company_id: z.coerce.number().int().positive() });
export const TokenIdParamsSchema = z.object({ token_id: z.string().regex(/^tok_[0-9a-f]{24}$/) });

export const GATEWAY_OPERATIONS = [
  defineOperation({
    method: 'post',
    path: '/admin/organizations',
    operationId: 'createOrganization',
    summary: 'Create an organization, its first API token and its owner',
    tags: ['admin'],
    auth: 'admin',
    request: { body: CreateOrganizationRequestSchema },
    responses: { 201: CreateOrganizationResponseSchema },
  }),
  defineOperation({
    method: 'post',
    path: '/admin/organizations/{company_id}/tokens',
    operationId: 'createOrganizationToken',
    summary: 'Issue another API token for an organization',
    tags: ['admin'],
    auth: 'admin',
    request: { params: CompanyIdParamsSchema },
    responses: { 201: CreateTokenResponseSchema },
  }),
  defineOperation({
    method: 'delete',
    path: '/admin/tokens/{token_id}',
    operationId: 'revokeToken',
    summary: 'Revoke an API token',
    tags: ['admin'],
    auth: 'admin',
    request: { params: TokenIdParamsSchema },
    responses: { 200: RevokeTokenResponseSchema },
  }),
  defineOperation({
    method: 'put',
    path: '/admin/organizations/{company_id}/channel',
    operationId: 'updateChannel',
    summary: "Point an organization's channel at Meta or another Cloud API server",
    tags: ['admin'],
    auth: 'admin',
    request: { params: CompanyIdParamsSchema, body: UpdateChannelRequestSchema },
    responses: { 200: successResponse({ channel: ChannelViewSchema }) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/svc/me',
    operationId: 'me',
    summary: 'Return the account that the token belongs to',
    tags: ['account'],
    auth: 'token',
    responses: { 200: MeResponseSchema },
  }),
  ...PHONE_NUMBER_OPERATIONS,
];

/** Every `/api/svc/<operation>` of spec §4.3 but `me` (and the campaign operations issue 7 adds), and the service that owns it (ARCHITECTURE §2). */
export const API_OPERATION_OWNERS = {
  sendMessageToPhoneNumber: 'messaging',
  sendtemplatemessage: 'messaging',
  sendmedia: 'messaging',
  sendCampaignMessageToPhoneNumber: 'campaigns',
  getConversations: 'messaging',
  // The human inbox.
  assignConversation: 'messaging',
  setConversationStatus: 'messaging',
  getMessages: 'messaging',
  getMessageStatus: 'messaging',
  // Beyond the spec's table: read receipts (and typing) for messages the contact sent.
  markMessageRead: 'messaging',
  // Beyond the spec's table: the files contacts send.
  getMedia: 'messaging',
  getContacts: 'contacts',
  getSingleContact: 'contacts',
  makeContact: 'contacts',
  updateContact: 'contacts',
  deleteContact: 'contacts',
  updateAIBot: 'contacts',
  getGroups: 'contacts',
  addGroup: 'contacts',
  updateGroup: 'contacts',
  deleteGroup: 'contacts',
  getTemplates: 'messaging',
  createTemplate: 'messaging',
  uploadTemplateMedia: 'messaging',
  deleteTemplate: 'messaging',
  getCampaigns: 'campaigns',
  sendcampaigns: 'campaigns',
  // Beyond the spec's table: campaigns are prepared over the API too.
  createCampaign: 'campaigns',
  getCampaign: 'campaigns',
  startCampaign: 'campaigns',
  cancelCampaign: 'campaigns',
  deleteCampaign: 'campaigns',
  getAutomatedReplies: 'campaigns',
  addAutomatedReply: 'campaigns',
  updateAutomatedReply: 'campaigns',
  deleteAutomatedReply: 'campaigns',
  // Issue 8: the AI bot's settings per organization (the per-contact switch is updateAIBot).
  getAIBotSettings: 'campaigns',
  updateAIBotSettings: 'campaigns',
  // Beyond the spec's table: flows are managed over the API.
  getFlows: 'campaigns',
  addFlow: 'campaigns',
  updateFlow: 'campaigns',
  deleteFlow: 'campaigns',
  // Beyond the spec's table: an operator turns automated answers back on for a contact.
  updateContactBots: 'campaigns',
  accountStatus: 'messaging',
} as const satisfies Record<string, Extract<ServiceName, 'messaging' | 'contacts' | 'campaigns'>>;
export type ApiOperationName = keyof typeof API_OPERATION_OWNERS;
export type ApiOperationOwner = (typeof API_OPERATION_OWNERS)[ApiOperationName];
