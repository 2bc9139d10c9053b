import { z } from 'zod';
import { successResponse } from '../envelope';
import {
  ContactNameSchema,
  ContactSchema,
  CustomFieldsInputSchema,
  EmailInputSchema,
  GroupRefsInputSchema,
  LanguageInputSchema,
  MAX_PER_PAGE,
  PhoneSchema,
  SubscriptionInputSchema,
} from './contacts-api';

/**
 * The contacts service's internal API (ARCHITECTURE §1): called by other services, behind the
 * internal secret header, never proxied by the gateway. Every request names its organization in
 * `company_id`; bodies are JSON.
 */
export const CONTACTS_INTERNAL_PATHS = {
  /** POST: the contact with this phone, created when new. Never refused by the contact quota. */
  resolve: '/internal/contacts/resolve',
  /** POST: contacts by id, in one call. */
  byIds: '/internal/contacts/by-ids',
  /** POST: one page of a campaign audience, in id order. */
  audience: '/internal/contacts/audience',
  /** POST: how many contacts an audience holds now. */
  audienceCount: '/internal/contacts/audience/count',
  /** POST: changes one contact's fields, custom fields and groups (a flow's steps). */
  update: '/internal/contacts/update',
} as const;

const companyId = () => z.number().int().positive();
const contactId = () => z.number().int().positive();

export const ResolveContactRequestSchema = z.object({
  company_id: companyId(),
  phone: PhoneSchema,
  /** The name the network reports for the sender; the phone is used when absent. */
  name: ContactNameSchema.optional(),
  /**
   * A send creating its recipient: a new contact then counts against the contact quota of the
   * organization stated in the org headers (as the gateway sends them), and a full quota answers
   * the quota error. Without it (an inbound message) the contact is always stored.
   */
  enforce_quota: z.boolean().optional(),
});
export type ResolveContactRequest = z.input<typeof ResolveContactRequestSchema>;

export const ResolveContactResponseSchema = successResponse({
  contact: ContactSchema,
  /** True when this call stored the contact. */
  created: z.boolean(),
});
export type ResolveContactResponse = z.infer<typeof ResolveContactResponseSchema>;

export const MAX_IDS_PER_CALL = 1000;

export const ContactsByIdsRequestSchema = z.object({
  company_id: companyId(),
  ids: z.array(contactId()).min(1).max(MAX_IDS_PER_CALL),
});
export type ContactsByIdsRequest = z.input<typeof ContactsByIdsRequestSchema>;

/** The contacts of the organization among `ids`, in id order; unknown ids are left out. */
export const ContactsByIdsResponseSchema = successResponse({ contacts: z.array(ContactSchema) });
export type ContactsByIdsResponse = z.infer<typeof ContactsByIdsResponseSchema>;

/** Who a campaign goes to (ARCHITECTURE §9). */
export const AudienceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('all') }),
  z.object({ type: z.literal('groups'), group_ids: z.array(contactId()).min(1).max(100) }),
  z.object({
    type: z.literal('contacts'),
    contact_ids: z.array(contactId()).min(1).max(100_000),
  }),
]);
export type Audience = z.infer<typeof AudienceSchema>;

const audienceRequest = {
  company_id: companyId(),
  audience: AudienceSchema,
  /** Unsubscribed contacts are left out unless this is true. */
  include_unsubscribed: z.boolean().default(false),
};

export const AudienceCountRequestSchema = z.object(audienceRequest);
export type AudienceCountRequest = z.input<typeof AudienceCountRequestSchema>;

export const AudienceCountResponseSchema = successResponse({
  total: z.number().int().nonnegative(),
});
export type AudienceCountResponse = z.infer<typeof AudienceCountResponseSchema>;

export const AudiencePageRequestSchema = z.object({
  ...audienceRequest,
  /** Keyset cursor: contacts with a greater id; 0 (default) starts at the beginning. */
  after_id: z.number().int().nonnegative().default(0),
  limit: z.number().int().positive().max(MAX_PER_PAGE).default(500),
});
export type AudiencePageRequest = z.input<typeof AudiencePageRequestSchema>;

export const AudiencePageResponseSchema = successResponse({
  contacts: z.array(ContactSchema),
  /** Pass as `after_id` for the next page; null when this page was the last. */
  next_after_id: z.number().int().positive().nullable(),
});
export type AudiencePageResponse = z.infer<typeof AudiencePageResponseSchema>;

const INTERNAL_UPDATABLE = [
  'name',
  'email',
  'language',
  'subscription',
  'custom',
  'groups',
] as const;

/**
 * Changes one contact with the public operations' rules: `name`, `email`, `language` and
 * `subscription` as `updateContact` takes them; `custom` merged as in `makeContact` (`null`
 * removes a key); `groups` added (ids must exist, unknown names create the group).
 */
export const InternalUpdateContactRequestSchema = z
  .object({
    company_id: companyId(),
    id: contactId(),
    name: ContactNameSchema.optional(),
    email: EmailInputSchema.optional(),
    language: LanguageInputSchema.optional(),
    subscription: SubscriptionInputSchema.optional(),
    custom: CustomFieldsInputSchema.optional(),
    groups: GroupRefsInputSchema.optional(),
  })
  .refine((body) => INTERNAL_UPDATABLE.some((field) => body[field] !== undefined), {
    message: `at least one of ${INTERNAL_UPDATABLE.join(', ')} is required`,
  });
export type InternalUpdateContactRequest = z.infer<typeof InternalUpdateContactRequestSchema>;
export type InternalUpdateContactRequestInput = z.input<typeof InternalUpdateContactRequestSchema>;

/** The contact as it is after the change; 404 for a contact or group id the organization lacks. */
export const InternalUpdateContactResponseSchema = successResponse({ contact: ContactSchema });
export type InternalUpdateContactResponse = z.infer<typeof InternalUpdateContactResponseSchema>;
