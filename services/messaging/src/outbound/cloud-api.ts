import { createHash } from 'node:crypto';
import {
  OutboundError,
  createOutboundClient,
  type Logger,
  type OutboundClient,
} from '@switchboard/service-kit';
import {
  busyChannelFailure,
  classifyProviderResponse,
  unreachableFailure,
  type ProviderFailure,
} from './provider-failure';

/** The fields of an organization's channel a provider client is built from. */
interface Channel {
  company_id: number;
  provider_base_url: string;
  api_version: string;
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}

export type CloudApiResult<T> = { ok: true; data: T } | { ok: false; failure: ProviderFailure };

export interface SendAccepted {
  wamid: string;
}

export interface MediaUpload {
  buffer: Buffer;
  mimeType: string;
  filename: string;
}

/** One organization's Cloud API account, behind its own breaker. */
export interface CloudApiClient {
  sendMessage(body: Record<string, unknown>): Promise<CloudApiResult<SendAccepted>>;
  uploadMedia(media: MediaUpload): Promise<CloudApiResult<{ id: string }>>;
  /** Marks a received message read (`status: read`), with a typing indicator when asked. */
  markRead(wamid: string, typing: boolean): Promise<CloudApiResult<true>>;
  /** `GET /{node}?fields=…` of the phone number or the WABA. */
  getNode(node: string, fields: string[]): Promise<CloudApiResult<Record<string, unknown>>>;
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
  isCircuitOpen(): boolean;
}

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

interface GraphSendResponse {
  messages?: { id?: unknown }[];
}

/**
 * A channel is one of the organization's numbers; its place among them (`slot`, 0 for the first)
 * keeps its client apart from the others'. Absent: the first.
 */
type NumberChannel = Channel & { slot?: number };

/**
 * The named Cloud API client: axios with a timeout and an opossum breaker per channel (each
 * number of an organization), so one organization's failing provider never slows another's. A channel whose address or credentials
 * change gets a fresh client.
 */
export function createCloudApi(options: {
  logger: Logger;
  timeoutMs: number;
  /** Calls one channel may have waiting on its provider at once; more are throttled here. */
  maxInFlight: number;
}) {
  // One client per number of an organization (`<company_id>:<slot>`).
  const clients = new Map<
    string,
    { fingerprint: string; client: CloudApiClient; raw: OutboundClient }
  >();

  function build(channel: NumberChannel): { client: CloudApiClient; raw: OutboundClient } {
    const slot = channel.slot ?? 0;
    const raw = createOutboundClient({
      name:
        slot === 0 ? `cloud-api:${channel.company_id}` : `cloud-api:${channel.company_id}:${slot}`,
      baseURL: `${channel.provider_base_url.replace(/\/+$/, '')}/${channel.api_version}`,
      timeoutMs: options.timeoutMs,
      logger: options.logger,
      // One metrics series for every organization's channel, not one per organization.
      metricsLabel: 'cloud-api',
      outsideRemote: true,
      // The provider failing, not our request: 5xx trip the breaker, 4xx never do.
      countsAsFailure: (status) => status >= 500,
    });
    const headers = { authorization: `Bearer ${channel.access_token}` };
    // One organization's hanging provider holds at most this many calls (sockets, memory), and
    // its further sends are throttled at once (429 after the send's retries) instead of piling up.
    let inFlight = 0;

    /** `request` is an axios config, or a function making the exchange (the hot path's). */
    async function call<T>(
      request:
        | Parameters<OutboundClient['request']>[0]
        | (() => Promise<{ status: number; data: unknown }>),
      accept: (data: unknown) => T | null,
    ): Promise<CloudApiResult<T>> {
      if (inFlight >= options.maxInFlight) {
        return { ok: false, failure: busyChannelFailure(options.maxInFlight) };
      }
      inFlight++;
      try {
        const response =
          typeof request === 'function'
            ? await request()
            : await raw.request({ ...request, headers: { ...headers, ...request.headers } });
        if (response.status >= 200 && response.status < 300) {
          const data = accept(response.data);
          if (data !== null) return { ok: true, data };
          return {
            ok: false,
            failure: {
              message: `The provider answered ${response.status} without the expected fields`,
              code: null,
              httpStatus: response.status,
              retryable: false,
              kind: 'refused',
            },
          };
        }
        return { ok: false, failure: classifyProviderResponse(response.status, response.data) };
      } catch (error) {
        if (error instanceof OutboundError) {
          return { ok: false, failure: unreachableFailure(error.message, error.kind) };
        }
        throw error;
      } finally {
        inFlight--;
      }
    }

    const client: CloudApiClient = {
      // Every send goes through here: a plain JSON POST on the client's keep-alive agent.
      sendMessage: (body) =>
        call(
          () => raw.postJson(`/${channel.phone_number_id}/messages`, body, headers),
          (data) => {
            const id = (data as GraphSendResponse | undefined)?.messages?.[0]?.id;
            return typeof id === 'string' && id !== '' ? { wamid: id } : null;
          },
        ),
      markRead: (wamid, typing) =>
        call(
          () =>
            raw.postJson(
              `/${channel.phone_number_id}/messages`,
              {
                messaging_product: 'whatsapp',
                status: 'read',
                message_id: wamid,
                ...(typing ? { typing_indicator: { type: 'text' } } : {}),
              },
              headers,
            ),
          (data) => ((data as { success?: unknown } | undefined)?.success === true ? true : null),
        ),
      uploadMedia: (media) => {
        const form = new FormData();
        form.append('messaging_product', 'whatsapp');
        form.append('type', media.mimeType);
        form.append(
          'file',
          new Blob([new Uint8Array(media.buffer)], { type: media.mimeType }),
          media.filename,
        );
        return call(
          { method: 'POST', url: `/${channel.phone_number_id}/media`, data: form },
          (data) => {
            const id = (data as { id?: unknown } | undefined)?.id;
            return typeof id === 'string' && id !== '' ? { id } : null;
          },
        );
      },
      getNode: (node, fields) =>
        call({ method: 'GET', url: `/${node}`, params: { fields: fields.join(',') } }, (data) =>
          typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null,
        ),
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
      isCircuitOpen: () => raw.isCircuitOpen(),
    };
    return { client, raw };
  }

  return {
    forChannel(channel: NumberChannel): CloudApiClient {
      const fingerprint = createHash('sha256')
        .update(
          [
            channel.provider_base_url,
            channel.api_version,
            channel.phone_number_id,
            channel.access_token,
          ].join('\n'),
        )
        .digest('hex');
      const key = `${channel.company_id}:${channel.slot ?? 0}`;
      const known = clients.get(key);
      if (known?.fingerprint === fingerprint) return known.client;
      known?.raw.shutdown();
      const built = build(channel);
      clients.set(key, { fingerprint, ...built });
      return built.client;
    },
    shutdown(): void {
      for (const { raw } of clients.values()) raw.shutdown();
      clients.clear();
    },
  };
}

export type CloudApi = ReturnType<typeof createCloudApi>;
