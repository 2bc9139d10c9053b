import { z } from 'zod';
import { successResponse } from '../envelope';
import { HTTP_URL } from './url-pattern';
import { fromJsonText } from './json-text';
import { defineOperation } from './operation';
import { PageMetaSchema, pageQuery } from './paging';

// Message templates: the API's `getTemplates`, `createTemplate`, `uploadTemplateMedia` and
// `deleteTemplate`. Components are the provider's own format (as the Cloud API documents it), so a
// business can paste what Meta documents; the rules Meta applies at review are checked here first.

export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export const TemplateCategorySchema = z.enum(TEMPLATE_CATEGORIES, {
  error: `must be one of ${TEMPLATE_CATEGORIES.join(', ')}`,
});

/** The provider's statuses (as the Cloud API documents it); only APPROVED can be sent. */
export const TEMPLATE_STATUSES = [
  'APPROVED',
  'PENDING',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'IN_APPEAL',
  'PENDING_DELETION',
  'DELETED',
  'LIMIT_EXCEEDED',
  'ARCHIVED',
  'FLAGGED',
  'LOCKED',
] as const;
export const TemplateStatusSchema = z.enum(TEMPLATE_STATUSES);
export type TemplateStatus = z.infer<typeof TemplateStatusSchema>;

export const TEMPLATE_LIMITS = {
  name: 512,
  body: 1024,
  headerText: 60,
  footer: 60,
  buttons: 10,
  buttonText: 25,
  url: 2000,
} as const;

export const TemplateNameSchema = z
  .string({ error: 'must be a string' })
  .trim()
  .regex(/^[a-z0-9_]{1,512}$/, { error: 'must be 1 to 512 lowercase letters, digits and _' });
export const TemplateLanguageSchema = z
  .string({ error: 'must be a language code such as en_US' })
  .trim()
  .regex(/^[a-z]{2,3}(?:_[A-Za-z0-9]{2,8})?$/, {
    error: 'must be a language code such as en or en_US',
  });

const componentText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

/** Examples are free-form in the provider's format; their fit with the text is checked in code. */
const ExampleSchema = z.record(z.string(), z.unknown(), { error: 'must be an object' });

export const HEADER_FORMATS = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION'] as const;

const HeaderComponentSchema = z.object({
  type: z.literal('HEADER'),
  format: z.enum(HEADER_FORMATS, { error: `must be one of ${HEADER_FORMATS.join(', ')}` }),
  text: componentText(TEMPLATE_LIMITS.headerText).optional(),
  example: ExampleSchema.optional(),
});
const BodyComponentSchema = z.object({
  type: z.literal('BODY'),
  text: componentText(TEMPLATE_LIMITS.body),
  example: ExampleSchema.optional(),
});
const FooterComponentSchema = z.object({
  type: z.literal('FOOTER'),
  text: componentText(TEMPLATE_LIMITS.footer),
});
const TemplateButtonSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('QUICK_REPLY'), text: componentText(TEMPLATE_LIMITS.buttonText) }),
    z.object({
      type: z.literal('URL'),
      text: componentText(TEMPLATE_LIMITS.buttonText),
      url: componentText(TEMPLATE_LIMITS.url),
      example: z.array(z.string()).optional(),
    }),
    z.object({
      type: z.literal('PHONE_NUMBER'),
      text: componentText(TEMPLATE_LIMITS.buttonText),
      phone_number: componentText(20),
    }),
    z.object({
      type: z.literal('COPY_CODE'),
      example: z.union([z.string(), z.array(z.string())]).optional(),
    }),
  ],
  { error: 'type must be QUICK_REPLY, URL, PHONE_NUMBER or COPY_CODE' },
);
const ButtonsComponentSchema = z.object({
  type: z.literal('BUTTONS'),
  buttons: z
    .array(TemplateButtonSchema)
    .min(1, { error: 'must hold at least one button' })
    .max(TEMPLATE_LIMITS.buttons, {
      error: `must hold at most ${TEMPLATE_LIMITS.buttons} buttons`,
    }),
});

export const TemplateComponentSchema = z.preprocess(
  // The provider takes the component type in upper case; accept `body` as well.
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string'
      ? { ...value, type: (value as { type: string }).type.toUpperCase() }
      : value,
  z.discriminatedUnion(
    'type',
    [HeaderComponentSchema, BodyComponentSchema, FooterComponentSchema, ButtonsComponentSchema],
    { error: 'type must be HEADER, BODY, FOOTER or BUTTONS' },
  ),
);
export type TemplateComponent = z.infer<typeof TemplateComponentSchema>;

/** A list given as an array or as a JSON text of one (form posts). */
const jsonList = <T extends z.ZodType>(item: T) =>
  z.preprocess(fromJsonText, z.array(item, { error: 'must be a list of components' }));

/**
 * A template is named by `template_name` and `template_language`, as the spec's data model and
 * `sendtemplatemessage` name them; `name` and `language` are the older names, still taken.
 */
const templateKeyFields = {
  template_name: TemplateNameSchema.optional(),
  template_language: TemplateLanguageSchema.optional(),
  name: TemplateNameSchema.optional().describe('Older name of template_name.'),
  language: TemplateLanguageSchema.optional().describe('Older name of template_language.'),
};
type TemplateKeyInput = {
  template_name?: string;
  template_language?: string;
  name?: string;
  language?: string;
};
const ONE_OF = (a: string, b: string) => ({ anyOf: [{ required: [a] }, { required: [b] }] });

function requireKey(
  request: TemplateKeyInput,
  ctx: z.RefinementCtx,
  options: { language: boolean },
): void {
  if (request.template_name === undefined && request.name === undefined) {
    ctx.addIssue({ code: 'custom', path: ['template_name'], message: 'is required' });
  }
  if (
    options.language &&
    request.template_language === undefined &&
    request.language === undefined
  ) {
    ctx.addIssue({ code: 'custom', path: ['template_language'], message: 'is required' });
  }
}

/** The request with its key under one name each: `name` and `language` (or none for language). */
export function withTemplateKey<T extends TemplateKeyInput>(request: T) {
  const { template_name, template_language, name, language, ...rest } = request;
  return { ...rest, name: (template_name ?? name)!, language: template_language ?? language };
}

export const CreateTemplateRequestSchema = z
  .object({
    ...templateKeyFields,
    category: z.preprocess(
      (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
      TemplateCategorySchema,
    ),
    parameter_format: z.enum(['POSITIONAL', 'NAMED']).default('POSITIONAL'),
    components: jsonList(TemplateComponentSchema)
      .meta({
        contains: { type: 'object', properties: { type: { const: 'BODY' } }, required: ['type'] },
      })
      .refine((components) => components.some((component) => component.type === 'BODY'), {
        message: 'must include a BODY component',
      }),
  })
  .meta({ allOf: [ONE_OF('template_name', 'name'), ONE_OF('template_language', 'language')] })
  .superRefine((request, ctx) => {
    requireKey(request, ctx, { language: true });
    const seen = new Set<string>();
    request.components.forEach((component, index) => {
      if (seen.has(component.type)) {
        ctx.addIssue({
          code: 'custom',
          path: ['components', index, 'type'],
          message: `only one ${component.type} component is allowed`,
        });
      }
      seen.add(component.type);
    });
  });
export type CreateTemplateRequest = z.infer<typeof CreateTemplateRequestSchema>;
export type CreateTemplateRequestInput = z.input<typeof CreateTemplateRequestSchema>;
/** A create request with its key as `name` and `language`, whichever names the caller used. */
export type TemplateToCreate = Omit<CreateTemplateRequest, keyof TemplateKeyInput> & {
  name: string;
  language: string;
};
export const templateToCreate = (request: CreateTemplateRequest): TemplateToCreate => {
  const { language, ...rest } = withTemplateKey(request);
  return { ...rest, language: language! };
};

export const TemplateViewSchema = z.object({
  id: z.number().int().positive(),
  /** The provider's template id. */
  provider_id: z.string(),
  template_name: z.string(),
  template_language: z.string(),
  /** Same as template_name (the older name). */
  name: z.string(),
  /** Same as template_language (the older name). */
  language: z.string(),
  category: z.string(),
  status: z.string(),
  /** The provider's reason for a rejection or pause; null otherwise. */
  rejection_reason: z.string().nullable(),
  /** The provider's quality score (GREEN, YELLOW, RED, UNKNOWN) once it reported one. */
  quality_score: z.string().nullable(),
  parameter_format: z.enum(['POSITIONAL', 'NAMED']),
  components: z.array(z.record(z.string(), z.unknown())),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
});
export type TemplateView = z.infer<typeof TemplateViewSchema>;

export const TemplateResponseSchema = successResponse({ template: TemplateViewSchema });
export type TemplateResponse = z.infer<typeof TemplateResponseSchema>;

export const MAX_TEMPLATES_PER_PAGE = 1000;
export const GetTemplatesQuerySchema = z.object({
  /** `1`/`true`: ask the provider for every template's status before answering. */
  refresh: z
    .enum(['0', '1', 'true', 'false'], { error: 'must be 1 or 0' })
    .optional()
    .transform((value) => value === '1' || value === 'true'),
  status: z
    .preprocess(
      (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
      TemplateStatusSchema,
    )
    .optional(),
  ...pageQuery({ max: MAX_TEMPLATES_PER_PAGE }),
});
export type GetTemplatesQuery = z.infer<typeof GetTemplatesQuerySchema>;

export const TemplatesResponseSchema = successResponse({
  templates: z.array(TemplateViewSchema),
  meta: PageMetaSchema,
});
export type TemplatesResponse = z.infer<typeof TemplatesResponseSchema>;

/** Without a language every language of the name goes. */
export const DeleteTemplateRequestSchema = z
  .object(templateKeyFields)
  .meta(ONE_OF('template_name', 'name'))
  .superRefine((request, ctx) => requireKey(request, ctx, { language: false }));
export type DeleteTemplateRequest = z.infer<typeof DeleteTemplateRequestSchema>;
export type TemplateToDelete = { name: string; language?: string };

export const DeleteTemplateResponseSchema = successResponse({
  deleted: z.array(z.object({ name: z.string(), language: z.string() })),
});
export type DeleteTemplateResponse = z.infer<typeof DeleteTemplateResponseSchema>;

/** Header media of a template example (as the Cloud API documents it): type and size per format. */
export const TEMPLATE_MEDIA_RULES = {
  'image/jpeg': { format: 'IMAGE', maxBytes: 5 * 1024 * 1024 },
  'image/png': { format: 'IMAGE', maxBytes: 5 * 1024 * 1024 },
  'video/mp4': { format: 'VIDEO', maxBytes: 16 * 1024 * 1024 },
  'video/3gpp': { format: 'VIDEO', maxBytes: 16 * 1024 * 1024 },
  'application/pdf': { format: 'DOCUMENT', maxBytes: 100 * 1024 * 1024 },
} as const;
export type TemplateMediaType = keyof typeof TEMPLATE_MEDIA_RULES;

export const UploadTemplateMediaRequestSchema = z.object({
  /** Where to fetch the file; or send it as multipart field `file`. */
  url: z
    .string({ error: 'must be a URL' })
    .trim()
    .max(2000, { error: 'must be at most 2000 characters' })
    .regex(HTTP_URL, { error: 'must be an http(s) URL' })
    .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
    .optional(),
});
export type UploadTemplateMediaRequest = z.infer<typeof UploadTemplateMediaRequestSchema>;

export const UploadTemplateMediaResponseSchema = successResponse({
  /** Put this in the header's `example.header_handle`. */
  handle: z.string(),
  mime_type: z.string(),
  file_size: z.number().int().nonnegative(),
});
export type UploadTemplateMediaResponse = z.infer<typeof UploadTemplateMediaResponseSchema>;

const TEMPLATE_OPERATION = { auth: 'token', tags: ['templates'] } as const;

export const TEMPLATE_OPERATIONS = [
  defineOperation({
    owner: 'messaging',
    method: 'get',
    ...TEMPLATE_OPERATION,
    path: '/api/svc/getTemplates',
    operationId: 'getTemplates',
    summary: 'Templates with their approval status',
    description:
      'Statuses follow the provider’s decisions as they arrive; `refresh=1` asks the provider ' +
      'first (a periodic job does the same in the background).',
    request: { query: GetTemplatesQuerySchema },
    responses: { 200: TemplatesResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'post',
    ...TEMPLATE_OPERATION,
    path: '/api/svc/createTemplate',
    operationId: 'createTemplate',
    summary: 'Create a template and submit it for approval',
    description:
      'Named by `template_name` and `template_language` (`name` and `language` are taken too). ' +
      'Components in the provider’s format. Placeholders `{{1}}`… (or `{{name}}` with ' +
      '`parameter_format: NAMED`) need examples; media headers need a handle from ' +
      '`uploadTemplateMedia`. Stored as PENDING until the provider decides.',
    request: { body: CreateTemplateRequestSchema },
    responses: { 201: TemplateResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'post',
    ...TEMPLATE_OPERATION,
    path: '/api/svc/uploadTemplateMedia',
    fileField: 'file',
    operationId: 'uploadTemplateMedia',
    summary: 'Upload an image, video or PDF for a template header example',
    description:
      'As `multipart/form-data` with field `file` (the token may be a field of the form, before ' +
      'the file), or by `url`. JPEG/PNG ≤ 5 MB, MP4/3GPP ≤ 16 MB, ' +
      'PDF ≤ 100 MB (this service accepts up to its own body limit).',
    request: { body: UploadTemplateMediaRequestSchema },
    responses: { 200: UploadTemplateMediaResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'post',
    ...TEMPLATE_OPERATION,
    path: '/api/svc/deleteTemplate',
    operationId: 'deleteTemplate',
    summary: 'Delete a template (every language, or one)',
    request: { body: DeleteTemplateRequestSchema },
    responses: { 200: DeleteTemplateResponseSchema },
  }),
  defineOperation({
    owner: 'messaging',
    method: 'delete',
    ...TEMPLATE_OPERATION,
    path: '/api/svc/deleteTemplate',
    operationId: 'deleteTemplateByDelete',
    summary: 'Delete a template (every language, or one)',
    request: { body: DeleteTemplateRequestSchema },
    responses: { 200: DeleteTemplateResponseSchema },
  }),
] as const;
