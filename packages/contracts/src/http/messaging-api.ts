import { z } from 'zod';
import { FromPhoneNumberSchema } from './phone-numbers-api';
import { successResponse } from '../envelope';
import { HTTP_URL } from './url-pattern';
import { BooleanInputSchema, PhoneSchema, PositiveIntegerSchema } from './contacts-api';
import { CONVERSATION_STATUSES, ConversationStatusSchema } from '../events/console-events';
import { PageMetaSchema, pageQuery } from './paging';
import { defineOperation } from './operation';
import { listInput } from './list-input';
import {
  ContactCardsSchema,
  LIST_LIMITS,
  ListMenuSchema,
  LocationSchema,
  ReactionSchema,
} from './message-content';
import { MediaDescriptorSchema } from '../events/payloads';

// The API's messaging operations. Inputs arrive as JSON or as form fields (all strings),
// so lists also accept a JSON text or a comma-separated string.

/** Cloud API limits as Meta documents them, checked before anything is reserved or sent. */
export const MESSAGE_LIMITS = {
  text: 4096,
  interactiveBody: 1024,
  caption: 1024,
  header: 60,
  footer: 60,
  buttons: 3,
  buttonTitle: 20,
  buttonId: 256,
  filename: 240,
  templateName: 512,
} as const;

export const MAX_MESSAGES_PER_PAGE = 100;
export const DEFAULT_MESSAGES_PER_PAGE = 20;

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

const optionalText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .optional()
    .transform((value) => (value === undefined || value.trim() === '' ? undefined : value));

const MediaUrlSchema = z
  .string({ error: 'must be a URL' })
  .trim()
  .max(2000, { error: 'must be at most 2000 characters' })
  .regex(HTTP_URL, { error: 'must be an http(s) URL' })
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }));

export const ReplyButtonSchema = z.object({
  id: text(MESSAGE_LIMITS.buttonId),
  title: text(MESSAGE_LIMITS.buttonTitle),
});
export type ReplyButton = z.infer<typeof ReplyButtonSchema>;

/** A button as `{id, title}`, or just its title (which is then its id as well). */
const ButtonInputSchema = z.union(
  [
    ReplyButtonSchema,
    text(MESSAGE_LIMITS.buttonTitle).transform((title) => ({ id: title, title })),
  ],
  { error: `must be {id, title} or a title of at most ${MESSAGE_LIMITS.buttonTitle} characters` },
);

export const ButtonsInputSchema = listInput(
  z
    .array(ButtonInputSchema, { error: 'must be a list of buttons' })
    .max(MESSAGE_LIMITS.buttons, { error: `must be at most ${MESSAGE_LIMITS.buttons} buttons` }),
).refine((buttons) => new Set(buttons.map((button) => button.title)).size === buttons.length, {
  message: 'button titles must be unique',
});

export const FRAME_NEEDS_BUTTONS =
  'only with buttons: the provider shows a header and a footer on reply-button messages, ' +
  'never on a text or an image';

/**
 * The Cloud API has a header and a footer only on interactive messages (a text or an image has
 * neither), so a header or footer without buttons is refused rather than dropped without a word.
 */
export function refuseFramesWithoutButtons(
  message: { header?: unknown; footer?: unknown; buttons?: unknown[] | null },
  ctx: z.RefinementCtx,
): void {
  if (message.buttons && message.buttons.length > 0) return;
  for (const field of ['header', 'footer'] as const) {
    if (message[field] !== undefined && message[field] !== null && message[field] !== '') {
      ctx.addIssue({ code: 'custom', path: [field], message: FRAME_NEEDS_BUTTONS });
    }
  }
}

/** The fields of a message as `sendMessageToPhoneNumber` takes them (replies reuse them). */
export const SendMessageFieldsSchema = z.object({
  phone: PhoneSchema,
  message: text(MESSAGE_LIMITS.text).describe(
    'The text; at most 1024 characters with buttons or an image (then it is the body or caption).',
  ),
  header: optionalText(MESSAGE_LIMITS.header).describe('Header text of a message with buttons.'),
  footer: optionalText(MESSAGE_LIMITS.footer).describe('Footer text of a message with buttons.'),
  buttons: ButtonsInputSchema.optional().describe(
    'Up to 3 reply buttons, as {id, title} objects or titles.',
  ),
  image: MediaUrlSchema.optional().describe(
    'Image URL: sent as an image with the message as caption, or as the header of a button message.',
  ),
});

const ReplyToSchema = PositiveIntegerSchema.optional().describe(
  'Our message_id of a message in this conversation: sent as a reply to it (the provider quotes it).',
);

/** What a message is besides a text: at most one of these per message. */
const KINDS = ['buttons', 'list', 'location', 'contacts', 'reaction', 'sticker', 'audio'] as const;
/** The kinds the provider shows no text with: `message` is left out for them. */
const WITHOUT_TEXT = new Set<string>(['location', 'contacts', 'reaction', 'sticker', 'audio']);

const given = (value: unknown) =>
  value !== undefined &&
  value !== null &&
  value !== '' &&
  !(Array.isArray(value) && value.length === 0);

/**
 * One kind per message, and only the parts the provider shows with it: a header and a footer on
 * button and list messages (a list's header is text), a text with everything but a location, a
 * contact card, a reaction, a sticker or an audio, and a reaction never as a reply.
 */
function refuseMixedKinds(message: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const kinds = KINDS.filter((kind) => given(message[kind]));
  if (kinds.length > 1) {
    ctx.addIssue({
      code: 'custom',
      path: [kinds[1]!],
      message: `one kind of message at a time: not with ${kinds[0]}`,
    });
    return;
  }
  const kind = kinds[0];
  if (kind === undefined || kind === 'buttons') {
    if (!given(message.message)) {
      ctx.addIssue({ code: 'custom', path: ['message'], message: 'is required' });
    }
    if (kind === undefined) refuseFramesWithoutButtons(message, ctx);
    return;
  }
  if (kind === 'list') {
    if (!given(message.message)) {
      ctx.addIssue({ code: 'custom', path: ['message'], message: 'is required (the list body)' });
    } else if ([...String(message.message)].length > LIST_LIMITS.body) {
      ctx.addIssue({
        code: 'custom',
        path: ['message'],
        message: `must be at most ${LIST_LIMITS.body} characters`,
      });
    }
    if (given(message.image)) {
      ctx.addIssue({
        code: 'custom',
        path: ['image'],
        message: 'a list message has a text header only',
      });
    }
    return;
  }
  for (const part of ['message', 'header', 'footer', 'image'] as const) {
    if (given(message[part])) {
      ctx.addIssue({
        code: 'custom',
        path: [part],
        message: `not shown with ${kind}: leave it out`,
      });
    }
  }
  if (kind === 'reaction' && given(message.reply_to)) {
    ctx.addIssue({
      code: 'custom',
      path: ['reply_to'],
      message: 'a reaction names its message itself',
    });
  }
  if (!WITHOUT_TEXT.has(kind)) throw new Error(`unhandled kind ${kind}`);
}

/** `sendMessageToPhoneNumber`: a text, or one of the Cloud API's other message kinds. */
export const SendMessageRequestSchema = SendMessageFieldsSchema.extend({
  message: z
    .string({ error: 'must be a string' })
    .max(MESSAGE_LIMITS.text, { error: `must be at most ${MESSAGE_LIMITS.text} characters` })
    .optional()
    .describe(
      'The text; at most 1024 characters with buttons or an image (then it is the body or ' +
        'caption), 4096 as a list body; left out with location, contacts, reaction, sticker, audio.',
    ),
  header: optionalText(MESSAGE_LIMITS.header).describe(
    'Header text of a message with buttons or a list.',
  ),
  footer: optionalText(MESSAGE_LIMITS.footer).describe(
    'Footer text of a message with buttons or a list.',
  ),
  list: ListMenuSchema.optional().describe(
    'A list menu: `message` is its body, `header` (text) and `footer` are allowed; up to 10 ' +
      'sections and 10 rows in all.',
  ),
  location: LocationSchema.optional().describe('A location pin.'),
  contacts: ContactCardsSchema.optional().describe('Contact cards (Meta’s vCard fields).'),
  reaction: ReactionSchema.optional().describe(
    'An emoji reaction to a message of this conversation (by our message_id).',
  ),
  sticker: MediaUrlSchema.optional().describe('A WebP sticker by URL.'),
  audio: MediaUrlSchema.optional().describe('An audio file by URL (AAC, AMR, MP3, M4A, OGG-Opus).'),
  reply_to: ReplyToSchema,
  from_phone_number_id: FromPhoneNumberSchema,
}).superRefine(refuseMixedKinds);
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>;

const TemplateComponentsSchema = listInput(
  z.array(z.record(z.string(), z.unknown(), { error: 'each component must be an object' }), {
    error: 'must be a list of template components',
  }),
).refine((components) => components.length <= 20, { message: 'must be at most 20 components' });

/** The API's `sendtemplatemessage` (components as the Cloud API takes them). */
export const SendTemplateRequestSchema = z.object({
  phone: PhoneSchema,
  template_name: z
    .string({ error: 'must be a string' })
    .trim()
    .regex(/^[a-z0-9_]{1,512}$/, { error: 'must be lowercase letters, digits and _' }),
  template_language: z
    .string({ error: 'must be a language code such as en_US' })
    .trim()
    .regex(/^[a-z]{2,3}(?:_[A-Za-z0-9]{2,8})?$/, {
      error: 'must be a language code such as en or en_US',
    }),
  components: TemplateComponentsSchema.optional().default([]),
  reply_to: ReplyToSchema,
  from_phone_number_id: FromPhoneNumberSchema,
});
export type SendTemplateRequest = z.infer<typeof SendTemplateRequestSchema>;

export const MEDIA_TYPES = ['image', 'document', 'video', 'audio', 'sticker'] as const;
export const MediaTypeSchema = z.enum(MEDIA_TYPES, {
  error: `must be one of ${MEDIA_TYPES.join(', ')}`,
});
export type MediaType = z.infer<typeof MediaTypeSchema>;

/** The API's `sendmedia`: by `url`, or with the file itself as multipart field `file`. */
export const SendMediaRequestSchema = z.object({
  phone: PhoneSchema,
  type: MediaTypeSchema,
  url: MediaUrlSchema.optional().describe(
    'Where the provider downloads the media; or send `file`.',
  ),
  caption: optionalText(MESSAGE_LIMITS.caption).describe('Not shown with audio or a sticker.'),
  filename: optionalText(MESSAGE_LIMITS.filename).describe('Shown with documents.'),
  reply_to: ReplyToSchema,
  from_phone_number_id: FromPhoneNumberSchema,
});
export type SendMediaRequest = z.infer<typeof SendMediaRequestSchema>;

export const SendMessageResponseSchema = successResponse({
  message_id: z.number().int().positive(),
  message_wamid: z.string(),
});
export type SendMessageResponse = z.infer<typeof SendMessageResponseSchema>;

// Reading messages.

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
/** `pending` while a send is in flight; `received` for inbound messages. */
export const STORED_MESSAGE_STATUSES = [
  'pending',
  'sent',
  'delivered',
  'read',
  'failed',
  'received',
] as const;
export const StoredMessageStatusSchema = z.enum(STORED_MESSAGE_STATUSES);
export type StoredMessageStatus = z.infer<typeof StoredMessageStatusSchema>;

const timestamp = () => z.iso.datetime({ offset: true });
const nullableTimestamp = () => timestamp().nullable();

/** When a message reached each status (null: not reached). */
export const StatusTimesSchema = z.object({
  sent: nullableTimestamp(),
  delivered: nullableTimestamp(),
  read: nullableTimestamp(),
  failed: nullableTimestamp(),
});
export type StatusTimes = z.infer<typeof StatusTimesSchema>;

/** A message as the spec's data model and events name it; `id` and `wamid` are older names. */
export const MessageViewSchema = z.object({
  message_id: z.number().int().positive(),
  /** The provider's id; null until the provider has accepted an outbound message. */
  message_wamid: z.string().nullable(),
  contact_id: z.number().int().positive(),
  /** Same as message_id (the name listings used first). */
  id: z.number().int().positive(),
  /** Same as message_wamid (the name listings used first). */
  wamid: z.string().nullable(),
  phone: z.string(),
  direction: z.enum(MESSAGE_DIRECTIONS),
  /** The provider's message type: text, image, interactive, template, reaction… */
  type: z.string(),
  /** The text, or a short description of what was sent or received. */
  message: z.string(),
  status: StoredMessageStatusSchema,
  error: z.string().nullable(),
  campaign_id: z.number().int().positive().nullable(),
  /** The user (agent) who sent it from the console; null for API, campaign and automated sends. */
  sent_by_agent_id: z.number().int().positive().nullable(),
  created_at: timestamp(),
  status_times: StatusTimesSchema,
  /** The file of an inbound image, audio, video, document or sticker; absent on other messages. */
  media: MediaDescriptorSchema.optional(),
  /**
   * The organization's number that sent or received it; absent on messages stored before
   * organizations had several numbers (those went through the first number).
   */
  phone_number_id: z.string().optional(),
});
export type MessageView = z.infer<typeof MessageViewSchema>;

export const GetMessageStatusQuerySchema = z.object({ message_id: PositiveIntegerSchema });
export type GetMessageStatusQuery = z.infer<typeof GetMessageStatusQuerySchema>;

export const StatusHistoryEntrySchema = z.object({
  status: z.string(),
  /** When the provider says it happened (the webhook's timestamp), or when we recorded it. */
  at: timestamp(),
  /** False for a status that arrived late or repeated and did not move the message. */
  applied: z.boolean(),
});

export const MessageStatusResponseSchema = successResponse({
  message_id: z.number().int().positive(),
  message_wamid: z.string().nullable(),
  message_status: StoredMessageStatusSchema,
  error: z.string().nullable(),
  status_times: StatusTimesSchema,
  history: z.array(StatusHistoryEntrySchema),
});
export type MessageStatusResponse = z.infer<typeof MessageStatusResponseSchema>;

const messagePages = () =>
  pageQuery({ max: MAX_MESSAGES_PER_PAGE, defaultPerPage: DEFAULT_MESSAGES_PER_PAGE });
const NEXT_BEFORE_ID =
  'The older cursor: pass as `before_id` for the next (older) page; null on the last page.';

export const GetMessagesQuerySchema = z.object({
  contact_id: PositiveIntegerSchema,
  ...messagePages(),
  before_id: PositiveIntegerSchema.optional().describe(
    'Only messages with a smaller id (the older cursor; pages then count from it).',
  ),
});
export type GetMessagesQuery = z.infer<typeof GetMessagesQuerySchema>;

export const MessagesResponseSchema = successResponse({
  messages: z.array(MessageViewSchema),
  meta: PageMetaSchema,
  next_before_id: z.number().int().positive().nullable().describe(NEXT_BEFORE_ID),
});
export type MessagesResponse = z.infer<typeof MessagesResponseSchema>;

/** `me` (the signed-in user), `none` (nobody) or a user id. */
export const AssigneeFilterSchema = z.union([z.enum(['me', 'none']), PositiveIntegerSchema], {
  error: 'must be me, none or a user id',
});
export type AssigneeFilter = z.infer<typeof AssigneeFilterSchema>;

export const GetConversationsQuerySchema = z.object({
  ...messagePages(),
  assignee: AssigneeFilterSchema.optional().describe(
    'Only conversations assigned to this user id, to `me` (the signed-in user; not with an API token) or to `none`.',
  ),
  status: z
    .enum(CONVERSATION_STATUSES, { error: `must be one of ${CONVERSATION_STATUSES.join(', ')}` })
    .optional()
    .describe('Only conversations in this status.'),
  unread: BooleanInputSchema.optional().describe(
    'true: only conversations with unread messages; false: only those without.',
  ),
  before_id: PositiveIntegerSchema.optional().describe(
    'Only conversations whose last message id is smaller (the older cursor; pages then count from it).',
  ),
});
export type GetConversationsQuery = z.infer<typeof GetConversationsQuerySchema>;

export const ConversationSchema = z.object({
  contact_id: z.number().int().positive(),
  /** The last message's message_id and message_wamid, as the events name them. */
  message_id: z.number().int().positive(),
  message_wamid: z.string().nullable(),
  contact_name: z.string(),
  phone: z.string(),
  last_message: MessageViewSchema,
  /** The organization's number the last message went through (see MessageView). */
  phone_number_id: z.string().optional(),
  /** Inbound messages since the business last sent a message to this contact or marked one read. */
  unread_count: z.number().int().nonnegative(),
  /** The user (agent) it is assigned to; null when nobody has it. */
  assigned_agent_id: z.number().int().positive().nullable(),
  status: ConversationStatusSchema,
  /**
   * When the contact last wrote; free-form messages can be sent until 24 hours after it (the
   * provider's customer service window), templates at any time. Null: never wrote.
   */
  last_inbound_at: nullableTimestamp(),
  updated_at: timestamp(),
});
export type Conversation = z.infer<typeof ConversationSchema>;

/** A conversation's inbox state, as assignConversation and setConversationStatus answer it. */
export const ConversationStateSchema = z.object({
  contact_id: z.number().int().positive(),
  assigned_agent_id: z.number().int().positive().nullable(),
  status: ConversationStatusSchema,
  unread_count: z.number().int().nonnegative(),
  updated_at: timestamp(),
});
export type ConversationState = z.infer<typeof ConversationStateSchema>;

export const ConversationStateResponseSchema = successResponse({
  conversation: ConversationStateSchema,
});
export type ConversationStateResponse = z.infer<typeof ConversationStateResponseSchema>;

export const AssignConversationRequestSchema = z.object({
  contact_id: PositiveIntegerSchema,
  agent_id: z
    .union([PositiveIntegerSchema, z.null(), z.literal('none').transform(() => null)], {
      error: 'must be a user id, or null (or "none") to unassign',
    })
    .describe('A user of the organization (active), or null to leave it with nobody.'),
});
export type AssignConversationRequest = z.infer<typeof AssignConversationRequestSchema>;

export const SetConversationStatusRequestSchema = z.object({
  contact_id: PositiveIntegerSchema,
  status: z.enum(CONVERSATION_STATUSES, {
    error: `must be one of ${CONVERSATION_STATUSES.join(', ')}`,
  }),
});
export type SetConversationStatusRequest = z.infer<typeof SetConversationStatusRequestSchema>;

export const ConversationsResponseSchema = successResponse({
  conversations: z.array(ConversationSchema),
  meta: PageMetaSchema,
  next_before_id: z.number().int().positive().nullable().describe(NEXT_BEFORE_ID),
});
export type ConversationsResponse = z.infer<typeof ConversationsResponseSchema>;

/** Marks a message the contact sent as read at the provider (blue ticks), optionally with typing. */
export const MarkMessageReadRequestSchema = z.object({
  message_id: PositiveIntegerSchema.describe('A message the contact sent (an inbound message).'),
  typing: BooleanInputSchema.optional().describe(
    'Also show the contact a typing indicator (until the next reply, or 25 seconds).',
  ),
});
export type MarkMessageReadRequest = z.infer<typeof MarkMessageReadRequestSchema>;

export const MarkMessageReadResponseSchema = successResponse({
  message_id: z.number().int().positive(),
  message_wamid: z.string(),
  contact_id: z.number().int().positive(),
  typing: z.boolean(),
  /** The conversation's unread messages left (those the contact sent after this one). */
  unread_count: z.number().int().nonnegative(),
});
export type MarkMessageReadResponse = z.infer<typeof MarkMessageReadResponseSchema>;
/** `getMedia`: the id is the message's (`message_id`); one file per message. */
export const GetMediaQuerySchema = z.object({ media_id: PositiveIntegerSchema });
export type GetMediaQuery = z.infer<typeof GetMediaQuerySchema>;

export const CONNECTION_STATES = ['connected', 'disconnected'] as const;

/** The API's `accountStatus`; provider fields are null when the provider could not be asked. */
export const AccountStatusResponseSchema = successResponse({
  connection_state: z.enum(CONNECTION_STATES),
  /** E.g. active, pending_review, rejected, restricted, disabled. */
  account_status: z.string().nullable(),
  /** The WABA's review status: APPROVED, PENDING, REJECTED, DEFERRED. */
  account_review_status: z.string().nullable(),
  quality_rating: z.string().nullable(),
  messaging_tier: z.string().nullable(),
  phone_number: z.string(),
  display_name: z.string(),
  name_status: z.string().nullable(),
  /** Why the state is disconnected (the provider's error or unreachable), else null. */
  error: z.string().nullable(),
});
export type AccountStatusResponse = z.infer<typeof AccountStatusResponseSchema>;

const MESSAGE_OPERATION = { auth: 'token', tags: ['messages'] } as const;
const IDEMPOTENCY_NOTE =
  ' An `Idempotency-Key` header makes a retried call return the first answer without sending ' +
  'again (409 while the first call is still running, 409 if the key was used for another request).';
const ANSWER_NOTE =
  ' The answer comes once the provider has answered the send, not on acceptance into a queue: ' +
  '200 means the provider accepted the message (its status is `sent` and `message_wamid` is the ' +
  'provider’s id); a refusal answers 422 or 502 with the `message_id` of the failed message, a ' +
  'provider still throttling after the retries 429, an unreachable provider 503. Delivery and ' +
  'read come later, as `message_status_updated` events.';
const UNSUBSCRIBED_NOTE =
  ' A contact who opted out (`subscription: unsubscribed`, e.g. by writing STOP) is only sent a ' +
  'reply within 24 hours of their last message, and never a marketing template: otherwise 422 ' +
  '`contact_unsubscribed` and nothing is sent.';
const QUOTA_NOTE =
  ' Each message counts against the plan’s messages per month (429 and nothing sent ' +
  'when exceeded); a number with no contact becomes a contact (the contact quota applies). ' +
  'A refusal by the provider answers `{status:"error", message}` with the provider’s error text.';

/** What every send operation says of its answer, quota, opted-out contacts and retries. */
const SEND_NOTES = ANSWER_NOTE + QUOTA_NOTE + UNSUBSCRIBED_NOTE + IDEMPOTENCY_NOTE;

export const MESSAGING_OPERATIONS = [
  defineOperation({
    owner: 'messaging',
    method: 'post',
    ...MESSAGE_OPERATION,
    path: '/api/svc/sendMessageToPhoneNumber',
    operationId: 'sendMessageToPhoneNumber',
    summary: 'Send a text, image, buttons, list, location, contacts, reaction, sticker or audio',
    description:
      'With `buttons`: an interactive message (`header` text or `image` as its header, `footer`). ' +
      'With `list`: a list menu (`message` as body, `header` text, `footer`; up to 10 sections ' +
      'and 10 rows in all, button text ≤ 20, section and row titles ≤ 24, row ids ≤ 200, ' +
      'descriptions ≤ 72). With `location`, `contacts`, `reaction`, `sticker` or `audio`: that ' +
      'message, without `message`. Without any of them and with `image`: an image with `message` ' +
      'as caption. Otherwise a text. One kind per message. `reply_to` (not with a reaction) sends ' +
      'it as a reply to a message of the conversation. The provider has a header and a footer ' +
      'only on button and list messages, so `header` or `footer` elsewhere is refused. Every ' +
      'broken limit is refused with 422 naming the field before anything is sent or counted.' +
      SEND_NOTES,
    request: { body: SendMessageRequestSchema },
    responses: { 200: SendMessageResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'post',
    ...MESSAGE_OPERATION,
    path: '/api/svc/sendtemplatemessage',
    operationId: 'sendtemplatemessage',
    summary: 'Send a template message',
    description:
      'Sent by name, language and components as given; the provider checks that the template ' +
      'exists and is approved. `reply_to` sends it as a reply to a message of the conversation.' +
      SEND_NOTES,
    request: { body: SendTemplateRequestSchema },
    responses: { 200: SendMessageResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'post',
    ...MESSAGE_OPERATION,
    path: '/api/svc/sendmedia',
    fileField: 'file',
    operationId: 'sendmedia',
    summary: 'Send an image, document, video, audio or sticker',
    description:
      'By `url` (JSON or form), or as `multipart/form-data` with the file in field `file` ' +
      '(uploaded to the provider first; the token as a form field before the file, in the query ' +
      'or as a bearer). ' +
      'Files: image JPEG/PNG ≤ 5 MB, video MP4/3GPP ≤ 16 MB, audio ≤ 16 MB, sticker WebP ≤ 500 KB, ' +
      'documents ≤ 16 MB here. `reply_to` sends it as a reply to a message of the conversation.' +
      SEND_NOTES,
    request: { body: SendMediaRequestSchema },
    responses: { 200: SendMessageResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'post',
    ...MESSAGE_OPERATION,
    path: '/api/svc/markMessageRead',
    operationId: 'markMessageRead',
    summary: 'Mark a message the contact sent as read, optionally showing typing',
    description:
      'The provider shows the contact blue ticks on this message and the ones before it; with ' +
      '`typing` it also shows a typing indicator until the next reply (or 25 seconds). The ' +
      'conversation’s unread count drops to the messages that came after it. 404 for an unknown ' +
      'message, 422 for a message the business sent; a provider refusal answers its error text.',
    request: { body: MarkMessageReadRequestSchema },
    responses: { 200: MarkMessageReadResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'get',
    ...MESSAGE_OPERATION,
    path: '/api/svc/getMessageStatus',
    operationId: 'getMessageStatus',
    summary: 'Delivery status of a message, with the time of each status',
    request: { query: GetMessageStatusQuerySchema },
    responses: { 200: MessageStatusResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'get',
    ...MESSAGE_OPERATION,
    path: '/api/svc/getMessages',
    operationId: 'getMessages',
    summary: 'Messages of a contact, newest first',
    request: { query: GetMessagesQuerySchema },
    responses: { 200: MessagesResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'get',
    ...MESSAGE_OPERATION,
    path: '/api/svc/getMedia',
    operationId: 'getMedia',
    summary: 'The file a contact sent (image, audio, video, document or sticker)',
    description:
      'The bytes of an inbound message’s file, with its content type, as `message_received` ' +
      '(`data.media.url`) and getMessages (`media.url`) point to it; `media_id` is the ' +
      'message’s id. 404 for an id of another organization, a message without a file, or a file ' +
      'not (or no longer) kept: `media.status` tells which (pending, too_large, failed, expired).',
    request: { query: GetMediaQuerySchema },
    binaryResponse: true,
    responses: { 200: z.string() },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'get',
    auth: 'token',
    tags: ['conversations'],
    path: '/api/svc/getConversations',
    operationId: 'getConversations',
    summary: 'Contacts with their last message and unread count, newest first',
    description:
      'The unread count is the number of messages the contact sent since the business last ' +
      'sent one to them or marked one read (markMessageRead). Filters: `assignee` (a user id, `me`, `none`), `status` (`open`, ' +
      '`needs_human`, `closed`), `unread`.',
    request: { query: GetConversationsQuerySchema },
    responses: { 200: ConversationsResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'post',
    auth: 'token_or_session',
    tags: ['conversations'],
    path: '/api/svc/assignConversation',
    operationId: 'assignConversation',
    summary: 'Assign a conversation to a user of the organization, or to nobody',
    description:
      'Any user may assign (agents included), and an API token too. `agent_id` must be an ' +
      'active user of the same organization (422 otherwise); null unassigns. A contact with no ' +
      'conversation (never messaged) is 404.',
    request: { body: AssignConversationRequestSchema },
    responses: { 200: ConversationStateResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'post',
    auth: 'token_or_session',
    tags: ['conversations'],
    path: '/api/svc/setConversationStatus',
    operationId: 'setConversationStatus',
    summary: 'Close, reopen or flag a conversation as needing a person',
    description:
      '`open`, `needs_human` or `closed`. A closed conversation opens again when the contact ' +
      'writes; a flow’s hand-over step or the AI bot’s hand-over sets `needs_human`.',
    request: { body: SetConversationStatusRequestSchema },
    responses: { 200: ConversationStateResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'get',
    auth: 'token',
    tags: ['account'],
    path: '/api/svc/accountStatus',
    operationId: 'accountStatus',
    summary: 'Connection state, account status, quality rating and messaging tier',
    description:
      'Asked of the provider (answers kept 30 s); when it cannot be reached the answer is still ' +
      '200, with `connection_state: "disconnected"` and the reason in `error`. An account ' +
      'decision the provider announces (the `account_status_updated` event: a review, a ban, a ' +
      'restriction) shows in `account_status` at once.',
    responses: { 200: AccountStatusResponseSchema },
  }),
];
