import { z } from 'zod';
import { ErrorResponseSchema } from './envelope';
import { AI_BOT_OPERATIONS } from './http/ai-bot-api';
import { AUTOMATED_REPLY_OPERATIONS } from './http/automated-replies-api';
import { CAMPAIGN_OPERATIONS } from './http/campaigns-api';
import { CONTACTS_OPERATIONS } from './http/contacts-api';
import { FLOW_OPERATIONS } from './http/flows-api';
import { GATEWAY_OPERATIONS } from './http/gateway-api';
import { LIVE_EVENT_OPERATIONS } from './http/live-events-api';
import { MESSAGING_OPERATIONS } from './http/messaging-api';
import type { Operation } from './http/operation';
import { TEMPLATE_OPERATIONS } from './http/templates-api';
import { CSRF_HEADER, SESSION_COOKIE, SESSION_OPERATIONS, USER_OPERATIONS } from './http/users-api';
import { WEBHOOK_OPERATIONS } from './http/webhooks-api';

/** Every documented operation; an API file adds one line here. */
export const ALL_OPERATIONS: readonly Operation[] = [
  ...GATEWAY_OPERATIONS,
  ...SESSION_OPERATIONS,
  ...USER_OPERATIONS,
  ...LIVE_EVENT_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...CONTACTS_OPERATIONS,
  ...MESSAGING_OPERATIONS,
  ...TEMPLATE_OPERATIONS,
  ...CAMPAIGN_OPERATIONS,
  ...AI_BOT_OPERATIONS,
  ...FLOW_OPERATIONS,
  ...AUTOMATED_REPLY_OPERATIONS,
];

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  jsonSchemaDialect: string;
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, unknown>;
  };
};

const ERROR_SCHEMA_REF = { $ref: '#/components/schemas/ErrorResponse' };

// What String.prototype.trim removes, spelled out: other regex engines' \s is a different set.
const JS_WHITESPACE =
  '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const NOT_BLANK = `[^${JS_WHITESPACE}]`;
function addPattern(json: JsonSchema, pattern: string): void {
  if (json.pattern === undefined && json.allOf === undefined) {
    json.pattern = pattern;
    return;
  }
  const allOf = (json.allOf ?? []) as JsonSchema[];
  if (json.pattern !== undefined) allOf.push({ pattern: json.pattern });
  delete json.pattern;
  json.allOf = [...allOf, { pattern }];
}

type ZodDef = {
  type: string;
  format?: string;
  checks?: { _zod: { def: { check: string; tx?: (input: string) => string } } }[];
  out?: z.ZodType;
  entries?: Record<string, string>;
};
const defOf = (schema: unknown) => (schema as { _zod: { def: ZodDef } })._zod.def;

/**
 * What the input schema cannot say by itself: zod checks some rules after a transform (trimming,
 * a pipe into an enum or a URL), and JSON Schema only sees the input side. Stated here once, the
 * document refuses what the server refuses, for generated clients and for fuzzers.
 */
function alignInput(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const def = defOf(ctx.zodSchema);
  const json = ctx.jsonSchema;
  const target = def.type === 'pipe' && def.out ? defOf(def.out) : def;
  if (target.type === 'enum' && target.entries && json.type === 'string') {
    json.enum = Object.values(target.entries);
  }
  // The URL schemas check HTTP_URL as a pattern; `format: uri` would admit far more.
  if (target.format === 'url') delete json.format;
  const trims = def.checks?.some(
    (check) => check._zod.def.check === 'overwrite' && check._zod.def.tx?.(' x ') === 'x',
  );
  if (def.type === 'string' && trims && typeof json.minLength === 'number' && json.minLength > 0) {
    addPattern(json, NOT_BLANK);
  }
}

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    ...(io === 'input' ? { override: alignInput } : {}),
  }) as JsonSchema;
  return rest;
}

function jsonContent(schema: JsonSchema) {
  return { 'application/json': { schema } };
}

/** A file operation's form: its fields, the file, and the token a form may carry too. */
function multipartContent(body: JsonSchema, fileField: string) {
  const properties = (body.properties ?? {}) as Record<string, JsonSchema>;
  return {
    'multipart/form-data': {
      schema: {
        ...body,
        properties: {
          ...properties,
          [fileField]: { type: 'string', format: 'binary', description: 'The file itself.' },
          token: {
            type: 'string',
            description:
              'The API token, when not sent as a bearer or in the query; best before the file ' +
              '(at most 1 MiB of the form is held while it is looked for). Never passed on.',
          },
        },
      },
    },
  };
}

function parameters(operation: Operation): unknown[] {
  const placeholders = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const path = operation.request?.params
    ? objectParameters(operation.request.params, 'path')
    : placeholders.map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      }));
  const query = operation.request?.query ? objectParameters(operation.request.query, 'query') : [];
  return [...path, ...query];
}

function objectParameters(schema: z.ZodObject, location: 'path' | 'query') {
  const json = toJsonSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: property,
  }));
}

const SECURITY: Record<Operation['auth'], Record<string, string[]>[]> = {
  token: [{ tokenQuery: [] }, { tokenBearer: [] }],
  session: [{ sessionCookie: [] }],
  token_or_session: [{ tokenQuery: [] }, { tokenBearer: [] }, { sessionCookie: [] }],
  admin: [{ adminBearer: [] }],
  none: [],
};

function describeOperation(operation: Operation) {
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(operation.responses)) {
    responses[status] = operation.eventStream
      ? {
          description:
            'A stream of server-sent events; the `data:` of each event frame is JSON of the ' +
            '`x-event-data` schema.',
          content: {
            'text/event-stream': {
              schema: { type: 'string' },
              'x-event-data': toJsonSchema(schema, 'output'),
            },
          },
        }
      : {
          description: 'Success',
          content: operation.binaryResponse
            ? {
                '*/*': {
                  schema: { type: 'string', contentMediaType: 'application/octet-stream' },
                },
              }
            : jsonContent(toJsonSchema(schema, 'output')),
        };
  }
  const error = (description: string) => ({ description, content: jsonContent(ERROR_SCHEMA_REF) });
  if (operation.auth !== 'none') responses['401'] = error('Invalid token');
  if (operation.request) responses['422'] = error('Validation failed; the message names the field');
  responses['4XX'] = error('Client error');
  responses['5XX'] = error('Server or dependency error');

  const body = operation.request?.body && toJsonSchema(operation.request.body, 'input');
  // A body whose every field is optional may be left out altogether, unless it must name one.
  const bodyRequired =
    (Array.isArray(body?.required) && body.required.length > 0) ||
    body?.anyOf !== undefined ||
    typeof body?.minProperties === 'number';
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [...operation.tags],
    security: SECURITY[operation.auth],
    parameters: parameters(operation),
    ...(body
      ? {
          requestBody: {
            required: bodyRequired,
            content: {
              ...jsonContent(body),
              ...(operation.fileField ? multipartContent(body, operation.fileField) : {}),
            },
          },
        }
      : {}),
    responses,
  };
}

/** An OpenAPI 3.1 document of `operations`, generated from their zod schemas. */
export function buildOpenApiDocument(
  operations: readonly Operation[] = ALL_OPERATIONS,
): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of operations) {
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = describeOperation(operation);
  }
  const tags = [...new Set(operations.flatMap((operation) => operation.tags))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version: '0.1.0',
      description:
        'Business messaging on the WhatsApp Business Cloud API. Every error answers ' +
        '`{status: "error", message, code}` with a real HTTP status. No text, in a query or a ' +
        'body, may hold U+0000 or an unpaired surrogate, and bodies nest at most 32 levels: ' +
        'such input is refused with 422 naming the field. Every list pages the same way: ' +
        '`page` (from 1) and `per_page` (`limit` is its older name), and the answer’s `meta` ' +
        '`{total, page, per_page, next_page}`; ask again with `page=next_page` until it is null. ' +
        'Lists the spec describes as whole (contacts, groups, templates, campaigns, webhooks) ' +
        'answer every item as one page when neither is given.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: { ErrorResponse: toJsonSchema(ErrorResponseSchema, 'output') },
      securitySchemes: {
        tokenQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description:
            'The organization API token (spec §5.1). GET sends it as the `token` query ' +
            'parameter; POST, PUT and DELETE may send it as the `token` field of the body, ' +
            'JSON, urlencoded form or multipart/form-data alike (in a form with a file, before the ' +
            'file). It is never passed on to the service behind the gateway.',
        },
        tokenBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'The organization API token as `Authorization: Bearer <token>`.',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description:
            "A signed-in user's session (POST /auth/sign-in sets it; `sb_session` when the " +
            `gateway runs with NODE_ENV=development). A write made with it must also send the ` +
            `session's CSRF token (from the sign-in answer or GET /auth/session) in the ` +
            `\`${CSRF_HEADER}\` header.`,
        },
        adminBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator token (`ADMIN_API_TOKEN`) for the /admin routes.',
        },
      },
    },
  };
}
