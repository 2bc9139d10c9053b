import { z } from 'zod';
import { successResponse } from '../envelope';
import { BooleanInputSchema, PositiveIntegerSchema } from './contacts-api';
import { defineOperation } from './operation';
import { PageMetaSchema, pageQuery } from './paging';

/** Who may do what in an organization: the owner and admins manage users and tokens. */
export const USER_ROLES = ['owner', 'admin', 'agent'] as const;
export const UserRoleSchema = z.enum(USER_ROLES);
export type UserRole = z.infer<typeof UserRoleSchema>;

/** The roles addAgent and updateAgent may give: there is one owner, made with the organization. */
export const AssignableRoleSchema = z.enum(['admin', 'agent'], {
  error: 'must be admin or agent',
});

/** The session cookie's name; browsers take the `__Host-` form only over HTTPS. */
export const SESSION_COOKIE = '__Host-sb_session';
export const DEVELOPMENT_SESSION_COOKIE = 'sb_session';
/** Every write authenticated by the session cookie carries the session's CSRF token here. */
export const CSRF_HEADER = 'x-csrf-token';

/** NIST SP 800-63B: at least 8 characters, long passphrases allowed; the cap bounds hashing cost. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;
export const PasswordSchema = z
  .string({ error: 'must be a string' })
  .min(PASSWORD_MIN_LENGTH, { error: `must be at least ${PASSWORD_MIN_LENGTH} characters` })
  .max(PASSWORD_MAX_LENGTH, { error: `must be at most ${PASSWORD_MAX_LENGTH} characters` });

/** Emails are compared and stored in lower case: one address, one user. */
export const UserEmailSchema = z
  .string({ error: 'must be an email address' })
  .trim()
  .max(254, { error: 'must be at most 254 characters' })
  .pipe(z.email({ error: 'must be a valid email address' }))
  .transform((email) => email.toLowerCase());

export const UserNameSchema = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(100, { error: 'must be at most 100 characters' });

const timestamp = () => z.iso.datetime({ offset: true });

export const AgentSchema = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  email: z.string(),
  role: UserRoleSchema,
  active: z.boolean(),
  /** True until the user has set a password through their invitation. */
  invitation_pending: z.boolean(),
  created_at: timestamp(),
});
export type Agent = z.infer<typeof AgentSchema>;

/** An invitation: a one-time link to the console, where the invited user sets a password. */
export const InvitationSchema = z.object({
  invitation_url: z.string(),
  invitation_expires_at: timestamp(),
});

export const AddAgentRequestSchema = z.object({
  name: UserNameSchema,
  email: UserEmailSchema,
  role: AssignableRoleSchema.default('agent'),
});
export type AddAgentRequest = z.infer<typeof AddAgentRequestSchema>;
export const AddAgentResponseSchema = successResponse({
  agent: AgentSchema,
  ...InvitationSchema.shape,
});

export const UpdateAgentRequestSchema = z
  .object({
    agent_id: PositiveIntegerSchema,
    name: UserNameSchema.optional(),
    role: AssignableRoleSchema.optional(),
    active: BooleanInputSchema.optional(),
  })
  .refine(
    (request) =>
      request.name !== undefined || request.role !== undefined || request.active !== undefined,
    { message: 'name, role or active is required', path: ['name'] },
  );
export type UpdateAgentRequest = z.infer<typeof UpdateAgentRequestSchema>;
export const AgentIdRequestSchema = z.object({ agent_id: PositiveIntegerSchema });
export const AgentResponseSchema = successResponse({ agent: AgentSchema });
/** An organization's users and tokens are few: read whole, a page cut when one is asked for. */
export const MAX_USERS_PER_PAGE = 500;
export const ListUsersQuerySchema = z.object({ ...pageQuery({ max: MAX_USERS_PER_PAGE }) });
export const AgentsResponseSchema = successResponse({
  agents: z.array(AgentSchema),
  meta: PageMetaSchema,
});
export type AgentsResponse = z.infer<typeof AgentsResponseSchema>;
export const DeleteAgentResponseSchema = successResponse({
  agent_id: z.number().int().positive(),
  deleted: z.literal(true),
});

export const TokenNameSchema = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(100, { error: 'must be at most 100 characters' });

export const ApiTokenViewSchema = z.object({
  token_id: z.string(),
  name: z.string(),
  /** The prefix and the last four characters; the whole value is shown once, at creation. */
  masked_token: z.string(),
  created_at: timestamp(),
  last_used_at: timestamp().nullable(),
});
export type ApiTokenView = z.infer<typeof ApiTokenViewSchema>;

export const TokensResponseSchema = successResponse({
  tokens: z.array(ApiTokenViewSchema),
  meta: PageMetaSchema,
});
export const CreateNamedTokenRequestSchema = z.object({ name: TokenNameSchema });
export const CreateNamedTokenResponseSchema = successResponse({
  ...ApiTokenViewSchema.shape,
  /** The secret itself: shown in this answer only. */
  token: z.string(),
});
export const TokenIdRequestSchema = z.object({
  token_id: z.string().regex(/^tok_[0-9a-f]{24}$/, { error: 'must be a token id (tok_…)' }),
});
export const DeleteTokenResponseSchema = successResponse({
  token_id: z.string(),
  revoked: z.literal(true),
});

export const SignInRequestSchema = z.object({
  email: UserEmailSchema,
  password: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(PASSWORD_MAX_LENGTH, { error: `must be at most ${PASSWORD_MAX_LENGTH} characters` }),
});
export const SessionUserSchema = z.object({
  id: z.number().int().positive(),
  company_id: z.number().int().positive(),
  name: z.string(),
  email: z.string(),
  role: UserRoleSchema,
});
export const SessionResponseSchema = successResponse({
  user: SessionUserSchema,
  /** Sent back in the `X-CSRF-Token` header with every write made with the session cookie. */
  csrf_token: z.string(),
  expires_at: timestamp(),
});
export type SessionResponse = z.infer<typeof SessionResponseSchema>;

export const ChangePasswordRequestSchema = z.object({
  current_password: z.string({ error: 'must be a string' }).max(PASSWORD_MAX_LENGTH),
  new_password: PasswordSchema,
});
export const AcceptInvitationRequestSchema = z.object({
  invitation: z.string({ error: 'must be a string' }).min(1).max(200),
  password: PasswordSchema,
  name: UserNameSchema.optional(),
});
export const SignedOutResponseSchema = successResponse({ signed_out: z.literal(true) });
export const PasswordChangedResponseSchema = successResponse({ password_changed: z.literal(true) });

/** The owner made with an organization, and their invitation when no password was given. */
export const OrganizationOwnerSchema = z.object({
  id: z.number().int().positive(),
  email: z.string(),
  role: z.literal('owner'),
  invitation_url: z.string().optional(),
  invitation_expires_at: timestamp().optional(),
});
export type OrganizationOwner = z.infer<typeof OrganizationOwnerSchema>;

/** The gateway's own `/api/svc` operations: answered by the gateway, never forwarded. */
export const USER_OPERATIONS = [
  defineOperation({
    owner: 'gateway',
    method: 'get',
    path: '/api/svc/getAgents',
    operationId: 'getAgents',
    summary: "List the organization's users (owner, admins, agents)",
    tags: ['users'],
    auth: 'token_or_session',
    request: { query: ListUsersQuerySchema },
    responses: { 200: AgentsResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'post',
    path: '/api/svc/addAgent',
    operationId: 'addAgent',
    summary: 'Add a user and answer their one-time invitation link',
    description:
      'Owners and admins, signed in. Counts against the plan\'s "Agents per organization" ' +
      '(the owner included); past it the answer is `quota_exceeded`.',
    tags: ['users'],
    auth: 'session',
    request: { body: AddAgentRequestSchema },
    responses: { 201: AddAgentResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'post',
    path: '/api/svc/updateAgent',
    operationId: 'updateAgent',
    summary: "Change a user's name or role, or deactivate them (which ends their sessions)",
    tags: ['users'],
    auth: 'session',
    request: { body: UpdateAgentRequestSchema },
    responses: { 200: AgentResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'delete',
    path: '/api/svc/deleteAgent',
    operationId: 'deleteAgent',
    summary: 'Remove a user, their sessions and their invitation',
    tags: ['users'],
    auth: 'session',
    request: { body: AgentIdRequestSchema },
    responses: { 200: DeleteAgentResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'get',
    path: '/api/svc/getTokens',
    operationId: 'getTokens',
    summary: "List the organization's API tokens, masked",
    tags: ['tokens'],
    auth: 'token_or_session',
    request: { query: ListUsersQuerySchema },
    responses: { 200: TokensResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'post',
    path: '/api/svc/createToken',
    operationId: 'createToken',
    summary: 'Create an API token; its value is shown in this answer only',
    tags: ['tokens'],
    auth: 'session',
    request: { body: CreateNamedTokenRequestSchema },
    responses: { 201: CreateNamedTokenResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'delete',
    path: '/api/svc/deleteToken',
    operationId: 'deleteToken',
    summary: 'Revoke an API token (every gateway refuses it within TOKEN_CACHE_TTL_MS)',
    tags: ['tokens'],
    auth: 'token_or_session',
    request: { body: TokenIdRequestSchema },
    responses: { 200: DeleteTokenResponseSchema },
  }),
];

export const SESSION_OPERATIONS = [
  defineOperation({
    owner: 'gateway',
    method: 'post',
    path: '/auth/sign-in',
    operationId: 'signIn',
    summary: 'Sign in with email and password; sets the session cookie',
    tags: ['sessions'],
    auth: 'none',
    request: { body: SignInRequestSchema },
    responses: { 200: SessionResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'get',
    path: '/auth/session',
    operationId: 'getSession',
    summary: 'The signed-in user and the CSRF token of their session',
    tags: ['sessions'],
    auth: 'session',
    responses: { 200: SessionResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'post',
    path: '/auth/sign-out',
    operationId: 'signOut',
    summary: 'End this session',
    tags: ['sessions'],
    auth: 'session',
    responses: { 200: SignedOutResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'post',
    path: '/auth/change-password',
    operationId: 'changePassword',
    summary: "Change the signed-in user's password; their other sessions end",
    tags: ['sessions'],
    auth: 'session',
    request: { body: ChangePasswordRequestSchema },
    responses: { 200: PasswordChangedResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'post',
    path: '/auth/accept-invitation',
    operationId: 'acceptInvitation',
    summary: 'Set a password with a one-time invitation; signs the user in',
    tags: ['sessions'],
    auth: 'none',
    request: { body: AcceptInvitationRequestSchema },
    responses: { 200: SessionResponseSchema },
  }),
];
