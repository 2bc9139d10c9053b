import {
  type PageMeta,
  type PagingInput,
  type TemplateToCreate,
  type TemplateToDelete,
  type TemplateView,
  pageOrWholeList,
} from '@switchboard/contracts';
import { AppError, type Logger } from '@switchboard/service-kit';
import {
  templateKey,
  type StoredTemplate,
  type TemplateStore,
} from '../../data-access/template-store';
import type { CloudApi, CloudApiClient, ProviderTemplate } from '../../outbound/cloud-api';
import type { ChannelDirectory } from '../channel-directory';
import type { ProviderFailure } from '../../outbound/provider-failure';
import { checkTemplateCreation } from './template-rules';

export interface TemplateDeps {
  templates: TemplateStore;
  channels: ChannelDirectory;
  cloudApi: CloudApi;
  nextTemplateId(): Promise<number>;
  logger: Logger;
}

export function presentTemplate(template: StoredTemplate): TemplateView {
  return {
    id: template.id,
    provider_id: template.provider_id,
    template_name: template.name,
    template_language: template.language,
    name: template.name,
    language: template.language,
    category: template.category,
    status: template.status,
    rejection_reason: template.rejection_reason,
    quality_score: template.quality_score,
    parameter_format: template.parameter_format,
    components: JSON.parse(template.components_json) as Record<string, unknown>[],
    created_at: template.created_at.toISOString(),
    updated_at: template.updated_at.toISOString(),
  };
}

/** A provider failure as the caller sees it: its refusal 422 with its text, else 502/503. */
export function providerError(failure: ProviderFailure): AppError {
  if (failure.kind === 'refused') {
    return new AppError('provider_error', failure.message, { httpStatus: 422 });
  }
  if (failure.kind === 'unavailable' || failure.kind === 'throttled') {
    return new AppError('dependency_unavailable', failure.message);
  }
  return new AppError('provider_error', failure.message);
}

async function clientOf(deps: TemplateDeps, company_id: number): Promise<CloudApiClient> {
  const channel = await deps.channels.find(company_id);
  if (!channel) {
    throw new AppError('dependency_unavailable', 'This organization has no messaging channel');
  }
  return deps.cloudApi.forChannel(channel);
}

/** createTemplate: checked here, submitted to the provider, stored with the provider's id. */
export async function createTemplate(
  deps: TemplateDeps,
  company_id: number,
  request: TemplateToCreate,
  now = new Date(),
): Promise<TemplateView> {
  checkTemplateCreation(request);
  const key = templateKey(company_id, request.name, request.language);
  if (await deps.templates.find(company_id, request.name, request.language)) {
    throw new AppError(
      'conflict',
      `name: a template ${request.name} in ${request.language} already exists`,
    );
  }
  const client = await clientOf(deps, company_id);
  const submitted = await client.createTemplate({
    name: request.name,
    language: request.language,
    category: request.category,
    parameter_format: request.parameter_format,
    components: request.components,
  });
  if (!submitted.ok) throw providerError(submitted.failure);

  const template: StoredTemplate = {
    _id: key,
    id: await deps.nextTemplateId(),
    company_id,
    provider_id: submitted.data.id,
    name: request.name,
    language: request.language,
    category: submitted.data.category ?? request.category,
    status: submitted.data.status,
    rejection_reason: null,
    quality_score: null,
    parameter_format: request.parameter_format,
    components_json: JSON.stringify(request.components),
    // Before any decision: the first webhook or sync always applies.
    status_at: new Date(0),
    created_at: now,
    updated_at: now,
  };
  if ((await deps.templates.insert(template)) === 'duplicate') {
    throw new AppError(
      'conflict',
      `name: a template ${request.name} in ${request.language} already exists`,
    );
  }
  return presentTemplate(template);
}

/**
 * Brings stored statuses in line with the provider's list, page by page. Templates made outside
 * Switchboard (Meta's own tools) are added; stored ones the provider no longer has become DELETED.
 */
export async function syncTemplates(
  deps: TemplateDeps,
  company_id: number,
  now = new Date(),
): Promise<void> {
  const client = await clientOf(deps, company_id);
  const stored = new Map(
    (await deps.templates.list(company_id)).map((template) => [template._id, template]),
  );
  const seen = new Set<string>();
  let after: string | undefined;
  for (let page = 0; page < 100; page++) {
    const answer = await client.listTemplates(after);
    if (!answer.ok) throw providerError(answer.failure);
    for (const remote of answer.data.templates) {
      const key = templateKey(company_id, remote.name, remote.language);
      seen.add(key);
      const local = stored.get(key);
      if (local) await applyRemote(deps, local, remote, now);
      else await adopt(deps, company_id, remote, now);
    }
    if (!answer.data.after) break;
    after = answer.data.after;
  }
  for (const [key, local] of stored) {
    if (!seen.has(key) && local.status !== 'DELETED') {
      await deps.templates.applyDecision(key, { status: 'DELETED', at: now });
    }
  }
}

async function applyRemote(
  deps: TemplateDeps,
  local: StoredTemplate,
  remote: ProviderTemplate,
  now: Date,
): Promise<void> {
  const category = remote.category ?? local.category;
  if (
    local.status === remote.status &&
    local.rejection_reason === remote.rejected_reason &&
    local.category === category
  ) {
    return;
  }
  await deps.templates.applyDecision(local._id, {
    status: remote.status,
    rejection_reason: remote.rejected_reason,
    category,
    at: now,
  });
}

async function adopt(
  deps: TemplateDeps,
  company_id: number,
  remote: ProviderTemplate,
  now: Date,
): Promise<void> {
  await deps.templates.insert({
    _id: templateKey(company_id, remote.name, remote.language),
    id: await deps.nextTemplateId(),
    company_id,
    provider_id: remote.id,
    name: remote.name,
    language: remote.language,
    category: remote.category ?? 'UTILITY',
    status: remote.status,
    rejection_reason: remote.rejected_reason,
    quality_score: null,
    parameter_format: remote.parameter_format,
    components_json: JSON.stringify(remote.components),
    status_at: now,
    created_at: now,
    updated_at: now,
  });
}

export async function listTemplates(
  deps: TemplateDeps,
  company_id: number,
  query: { refresh: boolean; status?: string } & PagingInput,
): Promise<{ templates: TemplateView[]; meta: PageMeta }> {
  if (query.refresh) await syncTemplates(deps, company_id);
  // At most a few thousand per account (the provider's own cap): read whole, cut in code.
  const all = await deps.templates.list(company_id, query.status ? { status: query.status } : {});
  const { items, meta } = pageOrWholeList(all, query, all.length || 1);
  return { templates: items.map(presentTemplate), meta };
}

/** deleteTemplate: at the provider (one language by its id, or every language), then here. */
export async function deleteTemplate(
  deps: TemplateDeps,
  company_id: number,
  request: TemplateToDelete,
): Promise<{ name: string; language: string }[]> {
  const matching = (await deps.templates.list(company_id, { name: request.name })).filter(
    (template) => request.language === undefined || template.language === request.language,
  );
  if (matching.length === 0) {
    const which = request.language ? ` in ${request.language}` : '';
    throw new AppError('not_found', `name: no template ${request.name}${which}`);
  }
  const client = await clientOf(deps, company_id);
  const deleted = await client.deleteTemplate(
    request.name,
    request.language ? matching[0]!.provider_id : undefined,
  );
  // Already gone at the provider (deleted in Meta's tools): removing our copy is still right.
  if (!deleted.ok && !/not found/i.test(deleted.failure.message)) {
    throw providerError(deleted.failure);
  }
  await deps.templates.delete(matching.map((template) => template._id));
  return matching.map(({ name, language }) => ({ name, language }));
}
