import { z } from 'zod';
import { successResponse } from '../envelope';
import { defineOperation } from './operation';
import { PositiveIntegerSchema } from './integers';
import { PageMetaSchema, pageQuery } from './paging';

// Inputs arrive as JSON or as form fields and query strings (all strings), so scalars accept both.
// Every message names what is expected; parseInput prefixes it with the field's path.

export const PHONE_MIN_DIGITS = 8;
export const PHONE_MAX_DIGITS = 15;
export const MAX_PER_PAGE = 1000;
export const MAX_CUSTOM_FIELDS = 50;
export const MAX_GROUP_REFS = 100;

const PHONE_RULE = `must be ${PHONE_MIN_DIGITS} to ${PHONE_MAX_DIGITS} digits with the country code and no + (spaces, dashes and brackets are removed)`;

// One pattern for the check and for the OpenAPI document, so generated clients and fuzzers
// agree with the server on what a phone is. ASCII classes only: other engines' \d and \s are wider.
const PHONE_TEXT = new RegExp(
  `^[ ()-]*\\+?(?:[ ()-]*[0-9]){${PHONE_MIN_DIGITS},${PHONE_MAX_DIGITS}}[ ()-]*$`,
);
const STORED_PHONE = new RegExp(`^[0-9]{${PHONE_MIN_DIGITS},${PHONE_MAX_DIGITS}}$`);

/**
 * Phone numbers as the API takes them: digits with country code, no plus. A leading `+`, spaces, dashes and brackets are
 * dropped; anything else, or a length outside 8..15 digits, is not a phone number (null).
 */
export function normalizePhone(input: string): string | null {
  if (!PHONE_TEXT.test(input)) return null;
  return input.replace(/[ ()+-]/g, '');
}

export const PhoneSchema = z
  .union(
    [
      z.string().regex(PHONE_TEXT, { error: PHONE_RULE }),
      z
        .number()
        .int({ error: PHONE_RULE })
        .min(10 ** (PHONE_MIN_DIGITS - 1), { error: PHONE_RULE })
        .max(10 ** PHONE_MAX_DIGITS - 1, { error: PHONE_RULE }),
    ],
    { error: PHONE_RULE },
  )
  .transform((value) => normalizePhone(String(value))!);

export { MAX_POSITIVE_INTEGER, PositiveIntegerSchema, positiveIntegerUpTo } from './integers';

/** `true`/`false`/`1`/`0`, as JSON booleans or numbers, or as strings from forms and queries. */
export const BooleanInputSchema = z
  .union(
    [
      z.boolean(),
      z.literal(0),
      z.literal(1),
      z.enum(['true', 'false', '1', '0', 'TRUE', 'FALSE', 'True', 'False']),
    ],
    { error: 'must be true, false, 1 or 0' },
  )
  .transform(
    (value) => value === true || value === 1 || value === '1' || /^true$/i.test(String(value)),
  );

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

export const ContactNameSchema = text(200);
export const GroupNameSchema = text(100).regex(/\D/, {
  error: 'must contain a character other than digits (digits alone are read as a group id)',
});

/** An email address; `""` or `null` means none (and clears it on update). */
export const EmailInputSchema = z
  .union([
    z.literal('').transform(() => null),
    z.null(),
    z
      .string({ error: 'must be an email address' })
      .trim()
      .max(254, { error: 'must be at most 254 characters' })
      .pipe(z.email({ error: 'must be a valid email address' })),
  ])
  .describe('An email address; an empty string or null clears it.');

/** A WhatsApp-style language code such as `en`, `pt_BR` or `es-419`; `""` or `null` clears it. */
export const LanguageInputSchema = z.union([
  z.literal('').transform(() => null),
  z.null(),
  z
    .string({ error: 'must be a language code such as en or pt_BR' })
    .trim()
    .regex(/^[a-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})?$/, {
      error: 'must be a language code such as en or pt_BR',
    }),
]);

export const SUBSCRIPTION_STATUSES = ['subscribed', 'unsubscribed'] as const;
export const SubscriptionSchema = z.enum(SUBSCRIPTION_STATUSES);
export type Subscription = z.infer<typeof SubscriptionSchema>;
export const SubscriptionInputSchema = z
  .string({ error: 'must be subscribed or unsubscribed' })
  .trim()
  .toLowerCase()
  .pipe(z.enum(SUBSCRIPTION_STATUSES, { error: 'must be subscribed or unsubscribed' }));

const CUSTOM_KEY = /^[A-Za-z0-9_][A-Za-z0-9_ -]{0,63}$/;

/** Custom fields: short names to text (numbers and booleans become text); `null` removes one on update. */
export const CustomFieldsInputSchema = z
  .record(
    z.string(),
    z.union([z.string().max(1000), z.number(), z.boolean(), z.null()], {
      error: 'must be text of at most 1000 characters, a number, a boolean or null',
    }),
    { error: 'must be an object of field names to text' },
  )
  .meta({ propertyNames: { pattern: CUSTOM_KEY.source }, maxProperties: MAX_CUSTOM_FIELDS })
  .superRefine((fields, ctx) => {
    const keys = Object.keys(fields);
    if (keys.length > MAX_CUSTOM_FIELDS) {
      ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_CUSTOM_FIELDS} fields` });
    }
    for (const key of keys.filter((name) => !CUSTOM_KEY.test(name))) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message:
          'field names are 1 to 64 letters, digits, spaces, _ or -, not starting with a space or -',
      });
    }
  })
  .transform((fields) =>
    Object.fromEntries(
      Object.entries(fields).map(([key, value]) => [key, value === null ? null : String(value)]),
    ),
  );
export type CustomFieldsInput = z.infer<typeof CustomFieldsInputSchema>;

/** A reference to a group in `makeContact`: digits are a group id, anything else a group name. */
export type GroupRef = { id: number } | { name: string };

function toGroupRef(token: string | number, ctx: z.RefinementCtx): GroupRef | undefined {
  if (typeof token === 'number') {
    if (Number.isSafeInteger(token) && token > 0) return { id: token };
  } else {
    const trimmed = token.trim();
    if (/^\d{1,15}$/.test(trimmed) && Number(trimmed) > 0) return { id: Number(trimmed) };
    const name = GroupNameSchema.safeParse(trimmed);
    if (name.success) return { name: name.data };
  }
  ctx.addIssue({
    code: 'custom',
    message: `${JSON.stringify(token)} is neither a group id nor a group name of 1 to 100 characters`,
  });
  return undefined;
}

/** Group ids or names, as an array or a comma-separated string; unknown names create the group. */
export const GroupRefsInputSchema = z
  .union(
    [
      z.string().max(10_000),
      z.array(z.union([z.string().max(100), z.number()])).max(MAX_GROUP_REFS),
    ],
    { error: 'must be group ids or names, as an array or a comma-separated string' },
  )
  .transform((value, ctx) => {
    const tokens = typeof value === 'string' ? value.split(',') : value;
    const refs: GroupRef[] = [];
    const seen = new Set<string>();
    for (const token of tokens) {
      if (typeof token === 'string' && token.trim() === '') continue;
      const ref = toGroupRef(token, ctx);
      if (!ref) continue;
      const key = 'id' in ref ? `#${ref.id}` : ref.name.toLowerCase();
      if (!seen.has(key)) refs.push(ref);
      seen.add(key);
    }
    if (refs.length > MAX_GROUP_REFS) {
      ctx.addIssue({ code: 'custom', message: `must name at most ${MAX_GROUP_REFS} groups` });
    }
    return refs;
  });

// Requests. Unknown fields are ignored (ARCHITECTURE §3).

export const GetContactsQuerySchema = z.object({
  ...pageQuery({ max: MAX_PER_PAGE }),
  group_id: PositiveIntegerSchema.optional().describe('Only members of this group.'),
  search: z
    .string({ error: 'must be a string' })
    .trim()
    .max(100, { error: 'must be at most 100 characters' })
    .optional()
    .describe('Part of the name (any case) or of the phone number.'),
});
export type GetContactsQuery = z.infer<typeof GetContactsQuerySchema>;
export const DEFAULT_PER_PAGE = 100;

export const GetSingleContactQuerySchema = z
  .object({
    contact_id: PositiveIntegerSchema.optional(),
    phone: PhoneSchema.optional(),
  })
  .refine((query) => query.contact_id !== undefined || query.phone !== undefined, {
    message: 'contact_id or phone is required',
    path: ['contact_id'],
  });
export type GetSingleContactQuery = z.infer<typeof GetSingleContactQuerySchema>;

export const MakeContactRequestSchema = z.object({
  name: ContactNameSchema,
  phone: PhoneSchema,
  email: EmailInputSchema.optional(),
  groups: GroupRefsInputSchema.optional(),
  custom: CustomFieldsInputSchema.optional(),
});
export type MakeContactRequest = z.infer<typeof MakeContactRequestSchema>;

export const UPDATABLE_CONTACT_FIELDS = [
  'name',
  'phone',
  'email',
  'language',
  'subscription',
] as const;

export const UpdateContactRequestSchema = z
  .object({
    id: PositiveIntegerSchema,
    name: ContactNameSchema.optional(),
    phone: PhoneSchema.optional(),
    email: EmailInputSchema.optional(),
    language: LanguageInputSchema.optional(),
    subscription: SubscriptionInputSchema.optional(),
  })
  .refine((body) => UPDATABLE_CONTACT_FIELDS.some((field) => body[field] !== undefined), {
    message: `at least one of ${UPDATABLE_CONTACT_FIELDS.join(', ')} is required`,
  });
export type UpdateContactRequest = z.infer<typeof UpdateContactRequestSchema>;

export const ContactIdRequestSchema = z.object({ id: PositiveIntegerSchema });
export type ContactIdRequest = z.infer<typeof ContactIdRequestSchema>;

export const UpdateAIBotRequestSchema = z.object({
  id: PositiveIntegerSchema,
  enabled: BooleanInputSchema,
});
export type UpdateAIBotRequest = z.infer<typeof UpdateAIBotRequestSchema>;

export const GetGroupsQuerySchema = z.object({
  showContacts: z
    .string({ error: 'must be yes or no' })
    .trim()
    .toLowerCase()
    .pipe(z.enum(['yes', 'no', 'true', 'false', '1', '0'], { error: 'must be yes or no' }))
    .optional()
    .describe('`yes` embeds the members of each group.'),
  ...pageQuery({ max: MAX_PER_PAGE }),
});
export type GetGroupsQuery = z.infer<typeof GetGroupsQuerySchema>;

export const AddGroupRequestSchema = z.object({ name: GroupNameSchema });
export const UpdateGroupRequestSchema = z.object({
  id: PositiveIntegerSchema,
  name: GroupNameSchema,
});
export const GroupIdRequestSchema = z.object({ id: PositiveIntegerSchema });
export type AddGroupRequest = z.infer<typeof AddGroupRequestSchema>;
export type UpdateGroupRequest = z.infer<typeof UpdateGroupRequestSchema>;
export type GroupIdRequest = z.infer<typeof GroupIdRequestSchema>;

// Responses.

const id = () => z.number().int().positive();
const timestamp = () => z.iso.datetime({ offset: true });

export const ContactGroupSchema = z.object({ id: id(), name: z.string() });

export const ContactSchema = z.object({
  id: id(),
  name: z.string(),
  phone: z.string().regex(STORED_PHONE),
  email: z.string().nullable(),
  language: z.string().nullable(),
  subscription: SubscriptionSchema,
  groups: z.array(ContactGroupSchema),
  custom: z.record(z.string(), z.string()),
  ai_bot_enabled: z.boolean(),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type Contact = z.infer<typeof ContactSchema>;

export const GroupSchema = z.object({
  id: id(),
  name: z.string(),
  created_at: timestamp(),
  updated_at: timestamp(),
  contacts: z.array(ContactSchema).optional().describe('Members, with showContacts=yes.'),
});
export type Group = z.infer<typeof GroupSchema>;

export const ContactsResponseSchema = successResponse({
  contacts: z.array(ContactSchema),
  meta: PageMetaSchema,
});
export type ContactsResponse = z.infer<typeof ContactsResponseSchema>;

export const ContactResponseSchema = successResponse({ contact: ContactSchema });
export type ContactResponse = z.infer<typeof ContactResponseSchema>;

export const GroupsResponseSchema = successResponse({
  groups: z.array(GroupSchema),
  meta: PageMetaSchema,
});
export type GroupsResponse = z.infer<typeof GroupsResponseSchema>;

export const GroupResponseSchema = successResponse({ group: GroupSchema });
export type GroupResponse = z.infer<typeof GroupResponseSchema>;

const CONTACT_OPERATION = { auth: 'token', tags: ['contacts'] } as const;
const GROUP_OPERATION = { auth: 'token', tags: ['groups'] } as const;

const UPDATE_CONTACT = {
  summary: 'Update a contact',
  description:
    'Only name, phone, email, language and subscription are writable; other fields are ignored. ' +
    'An empty email or language clears it. Unknown ids, also those of another organization, answer 404.',
  request: { body: UpdateContactRequestSchema },
  responses: { 200: ContactResponseSchema },
};

export const CONTACTS_OPERATIONS = [
  defineOperation({
    owner: 'contacts',
    method: 'get',
    ...CONTACT_OPERATION,
    path: '/api/svc/getContacts',
    operationId: 'getContacts',
    summary: 'List the contacts of the organization',
    description:
      'Without page or per_page every contact is returned (streamed, oldest first). With them, ' +
      `one page of at most per_page (default ${DEFAULT_PER_PAGE}). \`meta\` says how to get the next page.`,
    request: { query: GetContactsQuerySchema },
    responses: { 200: ContactsResponseSchema },
  }),
  defineOperation({
    owner: 'contacts',
    method: 'get',
    ...CONTACT_OPERATION,
    path: '/api/svc/getSingleContact',
    operationId: 'getSingleContact',
    summary: 'Fetch one contact by contact_id or phone',
    request: { query: GetSingleContactQuerySchema },
    responses: { 200: ContactResponseSchema },
  }),
  defineOperation({
    owner: 'contacts',
    method: 'post',
    ...CONTACT_OPERATION,
    path: '/api/svc/makeContact',
    operationId: 'makeContact',
    summary: 'Create a contact, or update the one that has this phone',
    description:
      'Creating answers 201, updating 200. `groups` adds memberships (ids or names; unknown names ' +
      'create the group); `custom` fields are merged, a null value removes one. A new contact ' +
      'counts against the plan quota (the published plan limits).',
    request: { body: MakeContactRequestSchema },
    responses: { 200: ContactResponseSchema, 201: ContactResponseSchema },
  }),
  defineOperation({
    owner: 'contacts',
    method: 'post',
    ...CONTACT_OPERATION,
    path: '/api/svc/updateContact',
    operationId: 'updateContact',
    ...UPDATE_CONTACT,
  }),
  defineOperation({
    owner: 'contacts',
    method: 'put',
    ...CONTACT_OPERATION,
    path: '/api/svc/updateContact',
    operationId: 'updateContactWithPut',
    ...UPDATE_CONTACT,
  }),
  defineOperation({
    owner: 'contacts',
    method: 'delete',
    ...CONTACT_OPERATION,
    path: '/api/svc/deleteContact',
    operationId: 'deleteContact',
    summary: 'Delete a contact; answers the contact as it was',
    request: { body: ContactIdRequestSchema },
    responses: { 200: ContactResponseSchema },
  }),
  defineOperation({
    owner: 'contacts',
    method: 'post',
    ...CONTACT_OPERATION,
    path: '/api/svc/updateAIBot',
    operationId: 'updateAIBot',
    summary: 'Enable or disable the AI bot for one contact',
    request: { body: UpdateAIBotRequestSchema },
    responses: { 200: ContactResponseSchema },
  }),
  defineOperation({
    owner: 'contacts',
    method: 'get',
    ...GROUP_OPERATION,
    path: '/api/svc/getGroups',
    operationId: 'getGroups',
    summary: 'List groups; with showContacts=yes, each with its members',
    request: { query: GetGroupsQuerySchema },
    responses: { 200: GroupsResponseSchema },
  }),
  defineOperation({
    owner: 'contacts',
    method: 'post',
    ...GROUP_OPERATION,
    path: '/api/svc/addGroup',
    operationId: 'addGroup',
    summary: 'Create a group',
    description: 'Group names are unique in an organization, whatever their case (409 otherwise).',
    request: { body: AddGroupRequestSchema },
    responses: { 201: GroupResponseSchema },
  }),
  defineOperation({
    owner: 'contacts',
    method: 'put',
    ...GROUP_OPERATION,
    path: '/api/svc/updateGroup',
    operationId: 'updateGroup',
    summary: 'Rename a group',
    request: { body: UpdateGroupRequestSchema },
    responses: { 200: GroupResponseSchema },
  }),
  defineOperation({
    owner: 'contacts',
    method: 'delete',
    ...GROUP_OPERATION,
    path: '/api/svc/deleteGroup',
    operationId: 'deleteGroup',
    summary: 'Delete a group; its contacts stay, their membership goes',
    request: { body: GroupIdRequestSchema },
    responses: { 200: GroupResponseSchema },
  }),
];
