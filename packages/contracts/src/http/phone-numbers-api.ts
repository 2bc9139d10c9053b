import { z } from 'zod';
import { successResponse } from '../envelope';
import { GraphIdSchema } from './messaging-internal-api';
import { defineOperation } from './operation';

/**
 * An organization's phone numbers. Each is a channel of its own (phone_number_id, credentials,
 * inbound URL, send rate); the first one, made with the organization, is the default that sends
 * use unless they name another with `from_phone_number_id`.
 */

/** The provider's standard throughput per number (messages per second). */
export const DEFAULT_SEND_RATE_PER_SECOND = 80;
export const SendRatePerSecondSchema = z
  .number()
  .int()
  .min(1)
  .max(1000)
  .describe('Messages per second this number sends at most (the provider allows 80, up to 1000).');

/** The optional field every send operation takes to send from a number other than the default. */
export const FromPhoneNumberSchema = GraphIdSchema.optional().describe(
  "The phone_number_id of one of the organization's numbers to send from; the first (default) " +
    'number when left out. An id that is not one of its numbers is refused with 422.',
);

/**
 * POST /admin/organizations/{company_id}/phone-numbers (gateway) → POST
 * /internal/channels/{company_id}/numbers (messaging). Every field is optional: the provider
 * address and WABA default to the first number's, the ids and credentials are generated (for the
 * default provider) until real ones are given.
 */
export const AddPhoneNumberRequestSchema = z.object({
  provider_base_url: z.string().url().max(500).optional(),
  api_version: z
    .string()
    .regex(/^v[0-9]{1,3}\.0$/, 'must look like v24.0')
    .optional(),
  phone_number_id: GraphIdSchema.optional(),
  waba_id: GraphIdSchema.optional(),
  access_token: z.string().min(1).max(1000).optional(),
  app_secret: z.string().min(1).max(500).optional(),
  verify_token: z.string().min(1).max(500).optional(),
  display_phone_number: z.string().min(1).max(30).optional(),
  verified_name: z.string().min(1).max(200).optional(),
  send_rate_per_second: SendRatePerSecondSchema.optional(),
});
export type AddPhoneNumberRequest = z.infer<typeof AddPhoneNumberRequestSchema>;

/** A number as listed: no secret. */
export const PhoneNumberViewSchema = z.object({
  phone_number_id: GraphIdSchema,
  display_phone_number: z.string(),
  waba_id: GraphIdSchema,
  inbound_url: z.string().url(),
  send_rate_per_second: z.number().int().positive(),
  /** The first number: sends use it unless they name another. */
  is_default: z.boolean(),
});
export type PhoneNumberView = z.infer<typeof PhoneNumberViewSchema>;

/** A number just added: what the admin configures at the provider (shown once), and its view. */
export const AddedPhoneNumberSchema = PhoneNumberViewSchema.extend({
  verify_token: z.string(),
  app_secret: z.string(),
});
export type AddedPhoneNumber = z.infer<typeof AddedPhoneNumberSchema>;

export const AddPhoneNumberResponseSchema = successResponse({
  phone_number: AddedPhoneNumberSchema,
});
export type AddPhoneNumberResponse = z.infer<typeof AddPhoneNumberResponseSchema>;

export const ListPhoneNumbersResponseSchema = successResponse({
  phone_numbers: z.array(PhoneNumberViewSchema),
});
export type ListPhoneNumbersResponse = z.infer<typeof ListPhoneNumbersResponseSchema>;

// Its own copy of the admin path's parameter: the gateway's operations list includes these, so
// importing from it would be circular.
const CompanyIdParamsSchema = z.object({ company_id: z.coerce.number().int().positive() });

/** Admin operations of the gateway (listed in GATEWAY_OPERATIONS). */
export const PHONE_NUMBER_OPERATIONS = [
  defineOperation({
    owner: 'gateway',
    method: 'post',
    path: '/admin/organizations/{company_id}/phone-numbers',
    operationId: 'addPhoneNumber',
    summary: 'Add a phone number to an organization (its own inbound URL, credentials, send rate)',
    tags: ['admin'],
    auth: 'admin',
    request: { params: CompanyIdParamsSchema, body: AddPhoneNumberRequestSchema },
    responses: { 201: AddPhoneNumberResponseSchema },
  }),
  defineOperation({
    owner: 'gateway',
    method: 'get',
    path: '/admin/organizations/{company_id}/phone-numbers',
    operationId: 'listPhoneNumbers',
    summary: "List an organization's phone numbers, the default first",
    tags: ['admin'],
    auth: 'admin',
    request: { params: CompanyIdParamsSchema },
    responses: { 200: ListPhoneNumbersResponseSchema },
  }),
];
