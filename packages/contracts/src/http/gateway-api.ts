import { z } from 'zod';
import { successResponse } from '../envelope';
import { PHONE_NUMBER_OPERATIONS } from './phone-numbers-api';
import { PlanSchema } from '../plans';
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
    owner: 'gateway',
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
    owner: 'gateway',
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
    owner: 'gateway',
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
    owner: 'gateway',
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
    owner: 'gateway',
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
