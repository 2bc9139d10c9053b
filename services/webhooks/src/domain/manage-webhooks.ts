import type {
  CreateWebhookRequest,
  DeliveryLogsQuery,
  UpdateWebhookRequest,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { DeliveryStore, StoredDeliveryLog } from '../data-access/delivery-store';
import type { StoredWebhook, WebhookStore } from '../data-access/webhook-store';
import { urlPolicyViolation, type SecretBox, type UrlPolicy } from '@switchboard/service-kit';
import { generateWebhookSecret, lastFourOf } from './webhook-secret';

export interface ManageDeps {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  secrets: SecretBox;
  urlPolicy: UrlPolicy;
  /** Drops a deleted webhook's breaker. */
  forgetEndpoint(webhookId: number): void;
  now?: () => Date;
}

/** A webhook as stored, with its secret in the clear only right after it was made. */
export interface WebhookView {
  webhook: StoredWebhook;
  secret?: string;
}

const clock = (deps: ManageDeps) => (deps.now ?? (() => new Date()))();

export const webhookNotFound = (id: number | string) =>
  new AppError('not_found', `Webhook ${id} not found`);

async function assertUrlAllowed(deps: ManageDeps, url: string): Promise<void> {
  const violation = await urlPolicyViolation(url, deps.urlPolicy);
  if (violation) throw new AppError('validation_failed', `url: ${violation}`);
}

export async function createWebhook(
  deps: ManageDeps,
  companyId: number,
  request: CreateWebhookRequest,
): Promise<WebhookView> {
  await assertUrlAllowed(deps, request.url);
  const secret = generateWebhookSecret();
  const now = clock(deps);
  const webhook = await deps.webhooks.insert({
    company_id: companyId,
    name: request.name,
    url: request.url,
    events: request.events,
    active: true,
    secret_sealed: deps.secrets.seal(secret),
    secret_last4: lastFourOf(secret),
    generation: 0,
    created_at: now,
    updated_at: now,
  });
  return { webhook, secret };
}

export async function getWebhook(
  deps: Pick<ManageDeps, 'webhooks'>,
  companyId: number,
  id: number,
): Promise<StoredWebhook> {
  const webhook = await deps.webhooks.find(companyId, id);
  if (!webhook) throw webhookNotFound(id);
  return webhook;
}

export async function updateWebhook(
  deps: ManageDeps,
  companyId: number,
  id: number,
  changes: UpdateWebhookRequest,
): Promise<StoredWebhook> {
  await getWebhook(deps, companyId, id);
  if (changes.url !== undefined) await assertUrlAllowed(deps, changes.url);
  const set: Partial<StoredWebhook> = { updated_at: clock(deps) };
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.events !== undefined) set.events = changes.events;
  const updated = await deps.webhooks.update(companyId, id, set);
  if (!updated) throw webhookNotFound(id);
  return updated;
}

/** Flips `active` atomically; pausing starts a new generation, which stops what is pending. */
export async function toggleWebhook(
  deps: ManageDeps,
  companyId: number,
  id: number,
): Promise<StoredWebhook> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await getWebhook(deps, companyId, id);
    const toggled = await deps.webhooks.update(
      companyId,
      id,
      { active: !current.active, updated_at: clock(deps) },
      { whenActive: current.active, incrementGeneration: current.active },
    );
    if (toggled) return toggled;
  }
  throw new AppError('conflict', `Webhook ${id} is being changed; try again`);
}

export async function rotateSecret(
  deps: ManageDeps,
  companyId: number,
  id: number,
): Promise<WebhookView> {
  await getWebhook(deps, companyId, id);
  const secret = generateWebhookSecret();
  const webhook = await deps.webhooks.update(companyId, id, {
    secret_sealed: deps.secrets.seal(secret),
    secret_last4: lastFourOf(secret),
    updated_at: clock(deps),
  });
  if (!webhook) throw webhookNotFound(id);
  return { webhook, secret };
}

/** Everything pending stops (its deliveries are gone) and the logs go with the webhook. */
export async function deleteWebhook(deps: ManageDeps, companyId: number, id: number) {
  if (!(await deps.webhooks.delete(companyId, id))) throw webhookNotFound(id);
  await deps.deliveries.deleteForWebhook(id);
  deps.forgetEndpoint(id);
}

export interface LogPage {
  rows: Array<StoredDeliveryLog & { payload: string | null }>;
  total: number;
}

export async function listDeliveryLogs(
  deps: ManageDeps,
  companyId: number,
  id: number,
  query: { page: number; limit: number; state?: DeliveryLogsQuery['state'] },
): Promise<LogPage> {
  await getWebhook(deps, companyId, id);
  const { rows, total } = await deps.deliveries.listLogs(id, query);
  // The payload is stored once, with its event (or its own delivery), not in every attempt's row.
  const payloads = await deps.deliveries.payloadsOf(rows);
  return {
    rows: rows.map((row) => ({ ...row, payload: payloads.get(row._id) ?? null })),
    total,
  };
}
