import { z } from 'zod';
import { successResponse } from '../envelope';
import { BooleanInputSchema, PositiveIntegerSchema } from './contacts-api';
import { PageMetaSchema, pageQuery } from './paging';
import { ButtonsInputSchema, ReplyButtonSchema, SendMessageFieldsSchema } from './messaging-api';
import { defineOperation } from './operation';
import { listInput } from './list-input';

// Automated (keyword) replies: the API's `getAutomatedReplies`, `addAutomatedReply`,
// `updateAutomatedReply` and `deleteAutomatedReply`. A reply's message has the fields of
// `sendMessageToPhoneNumber`: `message` (the text), optional `header`, `footer`, up to 3
// `buttons` and an `image`. Texts may hold `{{name}}`, `{{phone}}`, `{{email}}` and
// `{{custom.<key>}}`, filled from the contact when the reply is sent.

export const AUTOMATED_REPLY_KINDS = ['exact', 'contains', 'welcome'] as const;
export const AutomatedReplyKindSchema = z.enum(AUTOMATED_REPLY_KINDS, {
  error: `must be one of ${AUTOMATED_REPLY_KINDS.join(', ')}`,
});
export type AutomatedReplyKind = z.infer<typeof AutomatedReplyKindSchema>;

export const MAX_TRIGGERS = 50;
export const MAX_REPLIES_PER_PAGE = 1000;
export const DEFAULT_REPLIES_PER_PAGE = 100;

/** Triggers as an array, a JSON text of one, or a comma-separated string. */
export const TriggersInputSchema = listInput(
  z
    .array(
      z
        .string({ error: 'each trigger must be a string' })
        .trim()
        .max(100, { error: 'each trigger must be at most 100 characters' }),
      { error: 'must be a list of words or a comma-separated string' },
    )
    .transform((triggers) => [...new Set(triggers.filter((trigger) => trigger !== ''))])
    .refine((triggers) => triggers.length <= MAX_TRIGGERS, {
      message: `must be at most ${MAX_TRIGGERS} triggers`,
    }),
);

const ReplyContentShape = SendMessageFieldsSchema.omit({ phone: true }).shape;

const nextReplyId = z
  .union([PositiveIntegerSchema, z.null()])
  .describe('A reply sent right after this one (one level; its own next is not followed).');

const replyFields = {
  name: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(200, { error: 'must be at most 200 characters' }),
  kind: AutomatedReplyKindSchema,
  triggers: TriggersInputSchema.describe(
    'Words or phrases (exact and contains; a welcome reply has none), as an array or comma-separated.',
  ),
  ...ReplyContentShape,
  next_reply_id: nextReplyId,
  active: BooleanInputSchema,
};

/** Exact and contains replies need a trigger; a welcome reply answers a first message, any text. */
function checkTriggers(
  request: { kind?: AutomatedReplyKind; triggers?: string[] },
  ctx: z.RefinementCtx,
) {
  if (!request.kind) return;
  const triggers = request.triggers ?? [];
  if (request.kind === 'welcome' && triggers.length > 0) {
    ctx.addIssue({ code: 'custom', path: ['triggers'], message: 'a welcome reply has none' });
  }
  if (request.kind !== 'welcome' && request.triggers !== undefined && triggers.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['triggers'], message: 'at least one is required' });
  }
}

export const AddAutomatedReplyRequestSchema = z
  .object({
    ...replyFields,
    triggers: replyFields.triggers.optional(),
    next_reply_id: nextReplyId.optional(),
    active: BooleanInputSchema.default(true),
  })
  .superRefine((request, ctx) => {
    if (request.kind !== 'welcome' && request.triggers === undefined) {
      ctx.addIssue({ code: 'custom', path: ['triggers'], message: 'is required' });
    }
    checkTriggers(request, ctx);
  });
export type AddAutomatedReplyRequest = z.infer<typeof AddAutomatedReplyRequestSchema>;

/** Every field but `id` is optional; what is given replaces what was stored. */
export const UpdateAutomatedReplyRequestSchema = z
  .object({
    id: PositiveIntegerSchema,
    name: replyFields.name.optional(),
    kind: AutomatedReplyKindSchema.optional(),
    triggers: replyFields.triggers.optional(),
    message: ReplyContentShape.message.optional(),
    // null clears an optional part of the message.
    header: z.union([z.null(), ReplyContentShape.header]).optional(),
    footer: z.union([z.null(), ReplyContentShape.footer]).optional(),
    buttons: z.union([z.null(), ButtonsInputSchema]).optional(),
    image: z.union([z.null(), ReplyContentShape.image]).optional(),
    next_reply_id: nextReplyId.optional(),
    active: BooleanInputSchema.optional(),
  })
  .superRefine(checkTriggers);
export type UpdateAutomatedReplyRequest = z.infer<typeof UpdateAutomatedReplyRequestSchema>;

export const AutomatedReplyIdRequestSchema = z.object({ id: PositiveIntegerSchema });

export const GetAutomatedRepliesQuerySchema = z.object({
  kind: AutomatedReplyKindSchema.optional().describe('Only replies of this kind.'),
  ...pageQuery({ max: MAX_REPLIES_PER_PAGE, defaultPerPage: DEFAULT_REPLIES_PER_PAGE }),
});
export type GetAutomatedRepliesQuery = z.infer<typeof GetAutomatedRepliesQuerySchema>;

export const AutomatedReplySchema = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  kind: AutomatedReplyKindSchema,
  triggers: z.array(z.string()),
  message: z.string(),
  header: z.string().nullable(),
  footer: z.string().nullable(),
  buttons: z.array(ReplyButtonSchema),
  image: z.string().nullable(),
  next_reply_id: z.number().int().positive().nullable(),
  active: z.boolean(),
  /** How many times the reply was sent. */
  used: z.number().int().nonnegative(),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
});
export type AutomatedReply = z.infer<typeof AutomatedReplySchema>;

export const AutomatedRepliesResponseSchema = successResponse({
  replies: z.array(AutomatedReplySchema),
  meta: PageMetaSchema,
});
export type AutomatedRepliesResponse = z.infer<typeof AutomatedRepliesResponseSchema>;

export const AutomatedReplyResponseSchema = successResponse({ reply: AutomatedReplySchema });
export type AutomatedReplyResponse = z.infer<typeof AutomatedReplyResponseSchema>;

/**
 * `updateContactBots` (beyond the spec's table): turns every automated answer (replies, flows,
 * the AI bot) off or back on for one contact, as a flow's hand-over to a human does.
 */
export const UpdateContactBotsRequestSchema = z.object({
  contact_id: PositiveIntegerSchema,
  enabled: BooleanInputSchema,
});
export type UpdateContactBotsRequest = z.infer<typeof UpdateContactBotsRequestSchema>;

export const ContactBotsResponseSchema = successResponse({
  contact_id: z.number().int().positive(),
  bots_enabled: z.boolean(),
});
export type ContactBotsResponse = z.infer<typeof ContactBotsResponseSchema>;

const REPLY_OPERATION = { auth: 'token', tags: ['automated replies'] } as const;
const UPDATE_REPLY = {
  operationId: 'updateAutomatedReply',
  summary: 'Update an automated reply; the fields given replace the stored ones',
  request: { body: UpdateAutomatedReplyRequestSchema },
  responses: { 200: AutomatedReplyResponseSchema },
};
const DELETE_REPLY = {
  operationId: 'deleteAutomatedReply',
  summary: 'Delete an automated reply; answers it as it was (replies chaining to it stop chaining)',
  request: { body: AutomatedReplyIdRequestSchema },
  responses: { 200: AutomatedReplyResponseSchema },
};

export const AUTOMATED_REPLY_OPERATIONS = [
  defineOperation({
    owner: 'campaigns',
    method: 'get',
    ...REPLY_OPERATION,
    path: '/api/svc/getAutomatedReplies',
    operationId: 'getAutomatedReplies',
    summary: 'List automated replies (exact, contains, welcome), oldest first, one page at a time',
    request: { query: GetAutomatedRepliesQuerySchema },
    responses: { 200: AutomatedRepliesResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...REPLY_OPERATION,
    path: '/api/svc/addAutomatedReply',
    operationId: 'addAutomatedReply',
    summary: 'Create an automated reply',
    description:
      'An inbound message is answered at most once, in this order: an active flow, an exact ' +
      'reply (the whole message is a trigger), a contains reply (a trigger appears as whole ' +
      'words), a bot campaign’s keywords, the welcome reply (the contact’s first message), the ' +
      'AI bot. Matching ignores case, accents and punctuation; a button or list reply matches on ' +
      'its id and its title.',
    request: { body: AddAutomatedReplyRequestSchema },
    responses: { 201: AutomatedReplyResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'put',
    ...REPLY_OPERATION,
    path: '/api/svc/updateAutomatedReply',
    ...UPDATE_REPLY,
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...REPLY_OPERATION,
    path: '/api/svc/updateAutomatedReply',
    ...UPDATE_REPLY,
    operationId: 'updateAutomatedReplyWithPost',
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'delete',
    ...REPLY_OPERATION,
    path: '/api/svc/deleteAutomatedReply',
    ...DELETE_REPLY,
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...REPLY_OPERATION,
    path: '/api/svc/deleteAutomatedReply',
    ...DELETE_REPLY,
    operationId: 'deleteAutomatedReplyWithPost',
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...REPLY_OPERATION,
    path: '/api/svc/updateContactBots',
    operationId: 'updateContactBots',
    summary: 'Turn automated answers (replies, flows, AI bot) off or back on for one contact',
    request: { body: UpdateContactBotsRequestSchema },
    responses: { 200: ContactBotsResponseSchema },
  }),
] as const;
