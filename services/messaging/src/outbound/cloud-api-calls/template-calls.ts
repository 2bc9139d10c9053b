import type { MediaUpload } from './message-calls';
import type { CloudApiResult, NumberChannel, ProviderConnection } from './call-provider';

export interface ProviderTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string | null;
  rejected_reason: string | null;
  parameter_format: 'POSITIONAL' | 'NAMED';
  components: Record<string, unknown>[];
}

export interface ProviderTemplatePage {
  templates: ProviderTemplate[];
  after: string | null;
}

const TEMPLATE_FIELDS =
  'id,name,language,status,category,rejected_reason,parameter_format,components';
const TEMPLATE_PAGE_SIZE = 100;

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? String(value)
      : null;

function templatePageOf(data: unknown): ProviderTemplatePage | null {
  const body = data as {
    data?: unknown;
    paging?: { cursors?: { after?: unknown }; next?: unknown };
  };
  if (!Array.isArray(body?.data)) return null;
  const templates: ProviderTemplate[] = [];
  for (const row of body.data as Record<string, unknown>[]) {
    const id = str(row.id);
    const name = str(row.name);
    const language = str(row.language);
    const status = str(row.status);
    if (!id || !name || !language || !status) continue;
    const reason = str(row.rejected_reason);
    templates.push({
      id,
      name,
      language,
      status,
      category: str(row.category),
      rejected_reason: reason === 'NONE' ? null : reason,
      parameter_format: row.parameter_format === 'NAMED' ? 'NAMED' : 'POSITIONAL',
      components: Array.isArray(row.components)
        ? (row.components as Record<string, unknown>[])
        : [],
    });
  }
  const after = body.paging?.next ? str(body.paging.cursors?.after) : null;
  return { templates, after };
}

/** Managing the account's message templates: create, list page by page, delete, header examples. */
export interface TemplateCalls {
  /** `POST /{waba}/message_templates` → the provider's id and first status. */
  createTemplate(
    body: Record<string, unknown>,
  ): Promise<CloudApiResult<{ id: string; status: string; category: string | null }>>;
  /** One page of `GET /{waba}/message_templates`; `after` is the previous page's cursor. */
  listTemplates(after?: string): Promise<CloudApiResult<ProviderTemplatePage>>;
  /** `DELETE /{waba}/message_templates?name=[&hsm_id=]`. */
  deleteTemplate(name: string, providerId?: string): Promise<CloudApiResult<true>>;
  /** The resumable upload of a template header example → its handle. */
  uploadTemplateMedia(media: MediaUpload): Promise<CloudApiResult<{ handle: string }>>;
}

export function templateCalls(channel: NumberChannel, { call }: ProviderConnection): TemplateCalls {
  return {
    createTemplate: (body) =>
      call(
        {
          method: 'POST',
          url: `/${channel.waba_id}/message_templates`,
          data: body,
          headers: { 'content-type': 'application/json' },
        },
        (data) => {
          const answer = data as { id?: unknown; status?: unknown; category?: unknown };
          const id = str(answer?.id);
          return id
            ? { id, status: str(answer.status) ?? 'PENDING', category: str(answer.category) }
            : null;
        },
      ),
    listTemplates: (after) =>
      call(
        {
          method: 'GET',
          url: `/${channel.waba_id}/message_templates`,
          params: {
            fields: TEMPLATE_FIELDS,
            limit: TEMPLATE_PAGE_SIZE,
            ...(after ? { after } : {}),
          },
        },
        templatePageOf,
      ),
    deleteTemplate: (name, providerId) =>
      call(
        {
          method: 'DELETE',
          url: `/${channel.waba_id}/message_templates`,
          params: { name, ...(providerId ? { hsm_id: providerId } : {}) },
        },
        (data) => ((data as { success?: unknown })?.success === true ? true : null),
      ),
    uploadTemplateMedia: async (media) => {
      const session = await call(
        {
          method: 'POST',
          url: '/app/uploads',
          params: {
            file_length: media.buffer.length,
            file_type: media.mimeType,
            file_name: media.filename,
          },
        },
        (data) => str((data as { id?: unknown })?.id),
      );
      if (!session.ok) return session;
      return call(
        {
          method: 'POST',
          url: `/${session.data}`,
          data: media.buffer,
          headers: { 'content-type': 'application/octet-stream', file_offset: '0' },
        },
        (data) => {
          const handle = str((data as { h?: unknown })?.h);
          return handle ? { handle } : null;
        },
      );
    },
  };
}
