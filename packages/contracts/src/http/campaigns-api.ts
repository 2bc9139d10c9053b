import { z } from 'zod';
import { successResponse } from '../envelope';
import { HTTP_URL } from './url-pattern';
import { PhoneSchema, PositiveIntegerSchema } from './contacts-api';
import { AudienceSchema } from './contacts-internal-api';
import { fromJsonText } from './json-text';
import { defineOperation } from './operation';
import { PageMetaSchema, pageQuery } from './paging';
import { TemplateLanguageSchema, TemplateNameSchema } from './templates-api';
import { listInput } from './list-input';
import { refuseFramesWithoutButtons } from './messaging-api';

// Campaigns: the API's `getCampaigns`, `sendcampaigns` and `sendCampaignMessageToPhoneNumber`.
// Beyond those, campaigns are created, read, canceled and deleted over the
// API too, so that a business can prepare one without a dashboard.

export const CAMPAIGN_TYPES = ['regular', 'api', 'bot'] as const;
export const CampaignTypeSchema = z.enum(CAMPAIGN_TYPES, {
  error: `must be one of ${CAMPAIGN_TYPES.join(', ')}`,
});
export type CampaignType = z.infer<typeof CampaignTypeSchema>;

export const CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'started',
  'completed',
  'canceled',
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * Where a placeholder's value comes from: `{value}` a fixed text; `{field}` the contact's
 * `name`, `phone`, `email` or `custom.<key>`; `{data}` a dot path into an API call's `data`
 * (`order.id`). A string is read as `contact.<field>`, `data.<path>` or else a fixed value.
 */
export const VariableSourceSchema = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    if (value.startsWith('contact.')) return { field: value.slice('contact.'.length) };
    if (value.startsWith('data.')) return { data: value.slice('data.'.length) };
    return { value };
  },
  z.union(
    [
      z.strictObject({ value: z.string().max(1024) }),
      z.strictObject({
        field: z.string().regex(/^(name|phone|email|custom\.[A-Za-z0-9 _-]{1,64})$/, {
          error: 'must be name, phone, email or custom.<key>',
        }),
      }),
      z.strictObject({
        data: z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, {
          error: 'must be a dot path like order.id',
        }),
      }),
    ],
    { error: 'must be {value}, {field} or {data}' },
  ),
);
export type VariableSource = z.infer<typeof VariableSourceSchema>;

const ButtonSchema = z.object({
  id: z.string().min(1).max(256),
  title: z.string().min(1).max(20),
});

/** The message a campaign sends; `{{1}}`, `{{2}}`… in texts are filled from `variables`. */
export const CampaignMessageSchema = z.discriminatedUnion(
  'type',
  [
    z
      .object({
        type: z.literal('text'),
        text: z.string().min(1).max(4096),
        header: z.string().max(60).optional(),
        footer: z.string().max(60).optional(),
        buttons: z.array(ButtonSchema).max(3).optional(),
        image: z
          .url({ protocol: /^https?$/ })
          .regex(HTTP_URL)
          .optional(),
      })
      .meta({ dependentRequired: { header: ['buttons'], footer: ['buttons'] } })
      .superRefine(refuseFramesWithoutButtons),
    z
      .object({
        type: z.literal('template'),
        template_name: TemplateNameSchema,
        template_language: TemplateLanguageSchema,
        /** A TEXT header's `{{1}}` (`variables` fill the body). */
        header_variable: VariableSourceSchema.optional(),
        /** An IMAGE, VIDEO or DOCUMENT header: the media every recipient gets. */
        header_media: z
          .strictObject({
            type: z.enum(['image', 'video', 'document']),
            link: z.url({ protocol: /^https?$/ }).regex(HTTP_URL),
          })
          .optional(),
        /** A URL button's `{{1}}`, by the button's position in the template (from 0). */
        button_variables: z
          .array(
            z.strictObject({
              index: z.number().int().min(0).max(9),
              source: VariableSourceSchema,
            }),
          )
          .max(10)
          .optional(),
      })
      .superRefine((message, ctx) => {
        if (message.header_variable && message.header_media) {
          ctx.addIssue({
            code: 'custom',
            path: ['header_media'],
            message: 'a header is text or media, not both',
          });
        }
        const indexes = (message.button_variables ?? []).map((button) => button.index);
        if (new Set(indexes).size !== indexes.length) {
          ctx.addIssue({
            code: 'custom',
            path: ['button_variables'],
            message: 'one variable per button index',
          });
        }
      }),
  ],
  { error: 'type must be text or template' },
);
export type CampaignMessage = z.infer<typeof CampaignMessageSchema>;

/**
 * Every placeholder source of a campaign in the order its values are filled: the body's
 * `variables`, then a template's header variable, then its URL buttons' variables.
 */
export function placeholderSources(campaign: {
  message: CampaignMessage;
  variables: VariableSource[];
}): VariableSource[] {
  const { message } = campaign;
  if (message.type !== 'template') return campaign.variables;
  return [
    ...campaign.variables,
    ...(message.header_variable ? [message.header_variable] : []),
    ...(message.button_variables ?? []).map((button) => button.source),
  ];
}

const keywordList = listInput(z.array(z.string().min(1).max(100)).min(1).max(50), {
  dropEmpty: true,
});

export const CreateCampaignRequestSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    type: CampaignTypeSchema,
    message: CampaignMessageSchema,
    /** One source per placeholder, in order: `variables[0]` fills `{{1}}` (body of a template). */
    variables: z.array(VariableSourceSchema).max(20).default([]),
    /** Regular campaigns: who receives it. */
    audience: AudienceSchema.optional(),
    /** Bot campaigns: the words that trigger it. */
    keywords: keywordList.optional(),
    send_now: z.boolean().default(false),
    scheduled_at: z.iso.datetime({ offset: true }).optional(),
  })
  .superRefine((request, ctx) => {
    const issue = (path: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], message });
    if (request.type === 'regular' && !request.audience) issue('audience', 'is required');
    if (request.type !== 'regular' && request.audience) issue('audience', 'only for regular');
    if (request.type === 'bot' && !request.keywords) issue('keywords', 'is required');
    if (request.type !== 'bot' && request.keywords) issue('keywords', 'only for bot campaigns');
    if (request.type !== 'regular' && (request.send_now || request.scheduled_at)) {
      issue('send_now', 'only regular campaigns are sent to an audience');
    }
    if (request.send_now && request.scheduled_at) issue('scheduled_at', 'or send_now, not both');
    if (request.type !== 'api' && placeholderSources(request).some((source) => 'data' in source)) {
      issue('variables', 'data paths are only for api campaigns');
    }
  });
export type CreateCampaignRequest = z.infer<typeof CreateCampaignRequestSchema>;
export type CreateCampaignRequestInput = z.input<typeof CreateCampaignRequestSchema>;

export const CampaignViewSchema = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  type: CampaignTypeSchema,
  status: z.enum(CAMPAIGN_STATUSES),
  message: CampaignMessageSchema,
  variables: z.array(VariableSourceSchema),
  audience: AudienceSchema.nullable(),
  keywords: z.array(z.string()).nullable(),
  scheduled_at: z.iso.datetime({ offset: true }).nullable(),
  total_contacts: z.number().int().nonnegative(),
  sent: z.number().int().nonnegative(),
  delivered: z.number().int().nonnegative(),
  read: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  created_at: z.iso.datetime({ offset: true }),
  started_at: z.iso.datetime({ offset: true }).nullable(),
  completed_at: z.iso.datetime({ offset: true }).nullable(),
});
export type CampaignView = z.infer<typeof CampaignViewSchema>;

export const CampaignResponseSchema = successResponse({ campaign: CampaignViewSchema });
export type CampaignResponse = z.infer<typeof CampaignResponseSchema>;

export const MAX_CAMPAIGNS_PER_PAGE = 1000;
export const GetCampaignsQuerySchema = z.object({
  type: CampaignTypeSchema.optional(),
  ...pageQuery({ max: MAX_CAMPAIGNS_PER_PAGE }),
});
export const CampaignsResponseSchema = successResponse({
  campaigns: z.array(CampaignViewSchema),
  meta: PageMetaSchema,
});
export type CampaignsResponse = z.infer<typeof CampaignsResponseSchema>;

export const CampaignIdRequestSchema = z.object({ id: PositiveIntegerSchema });

/** `sendcampaigns`: `campaing_id` is the spec's spelling; `campaign_id` is accepted too. */
export const SendCampaignRequestSchema = z
  .object({
    phone: PhoneSchema,
    campaing_id: PositiveIntegerSchema.optional(),
    campaign_id: PositiveIntegerSchema.optional(),
    data: z
      .preprocess(fromJsonText, z.record(z.string(), z.unknown(), { error: 'must be an object' }))
      .default({}),
  })
  .meta({ anyOf: [{ required: ['campaing_id'] }, { required: ['campaign_id'] }] })
  .refine((request) => request.campaing_id ?? request.campaign_id, {
    message: 'campaing_id is required',
    path: ['campaing_id'],
  });
export type SendCampaignRequest = z.infer<typeof SendCampaignRequestSchema>;

export const SendCampaignResponseSchema = successResponse({
  message_id: z.number().int().positive(),
  message_wamid: z.string(),
});

const CAMPAIGN_OPERATION = { auth: 'token', tags: ['campaigns'] } as const;
const SEND_CAMPAIGN_DESCRIPTION =
  'Fills the API campaign’s variables from the contact (created when new) and `data` (JSON, or ' +
  'form brackets such as `data[order][id]=7`), sends it and answers the message ids. Missing ' +
  'variables: 422 listing their paths; an unknown or non-API campaign: 404; a contact who opted ' +
  'out (unsubscribed): 422 `contact_unsubscribed`, nothing sent.';

export const CAMPAIGN_OPERATIONS = [
  defineOperation({
    owner: 'campaigns',
    method: 'get',
    ...CAMPAIGN_OPERATION,
    path: '/api/svc/getCampaigns',
    operationId: 'getCampaigns',
    summary: 'Campaigns, optionally of one type',
    request: { query: GetCampaignsQuerySchema },
    responses: { 200: CampaignsResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...CAMPAIGN_OPERATION,
    path: '/api/svc/createCampaign',
    operationId: 'createCampaign',
    summary: 'Create a campaign (regular: sent now, at scheduled_at, or kept as a draft)',
    description:
      'Starting reserves the messages for the whole audience and one campaign of the month at ' +
      'once: if either quota is short nothing is sent and the answer is 429.',
    request: { body: CreateCampaignRequestSchema },
    responses: { 201: CampaignResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'get',
    ...CAMPAIGN_OPERATION,
    path: '/api/svc/getCampaign',
    operationId: 'getCampaign',
    summary: 'One campaign with live counters',
    request: { query: CampaignIdRequestSchema },
    responses: { 200: CampaignResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...CAMPAIGN_OPERATION,
    path: '/api/svc/startCampaign',
    operationId: 'startCampaign',
    summary: 'Start a draft or scheduled regular campaign now',
    request: { body: CampaignIdRequestSchema },
    responses: { 200: CampaignResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...CAMPAIGN_OPERATION,
    path: '/api/svc/cancelCampaign',
    operationId: 'cancelCampaign',
    summary: 'Cancel a draft, scheduled or started campaign (messages not yet handed over stop)',
    request: { body: CampaignIdRequestSchema },
    responses: { 200: CampaignResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...CAMPAIGN_OPERATION,
    path: '/api/svc/deleteCampaign',
    operationId: 'deleteCampaign',
    summary: 'Delete a draft or finished campaign',
    request: { body: CampaignIdRequestSchema },
    responses: { 200: successResponse({}) },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...CAMPAIGN_OPERATION,
    path: '/api/svc/sendcampaigns',
    operationId: 'sendcampaigns',
    summary: 'Send an API campaign’s message to one phone number',
    description: SEND_CAMPAIGN_DESCRIPTION,
    request: { body: SendCampaignRequestSchema },
    responses: { 200: SendCampaignResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...CAMPAIGN_OPERATION,
    path: '/api/svc/sendCampaignMessageToPhoneNumber',
    operationId: 'sendCampaignMessageToPhoneNumber',
    summary: 'Send an API campaign’s message to one phone number (same as sendcampaigns)',
    description: SEND_CAMPAIGN_DESCRIPTION,
    request: { body: SendCampaignRequestSchema },
    responses: { 200: SendCampaignResponseSchema },
  }),
] as const;
