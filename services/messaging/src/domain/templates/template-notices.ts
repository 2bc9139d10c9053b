import type { BrokerEvent, ProviderEventMessage } from '@switchboard/contracts';
import type { EventRelay, Logger } from '@switchboard/service-kit';
import type { NoticeStore } from '../../data-access/notice-store';
import {
  templateKey,
  type StoredTemplate,
  type TemplateDecision,
  type TemplateStore,
} from '../../data-access/template-store';
import { brokerEvent, stableEventId } from '../message-events';
import { storeNotice } from '../provider-notices';

export interface TemplateNoticeDeps {
  templates: TemplateStore;
  notices: NoticeStore;
  relay: EventRelay;
  logger: Logger;
  /** The published event catalog: `template_approved` / `template_rejected` are reserved, published only when on. */
  emitReservedEvents: boolean;
}

/** A decision for a template we do not know yet may be racing its creation: retried this long. */
const UNKNOWN_TEMPLATE_RETRY_MS = 2 * 60 * 1000;

type Loose = Record<string, unknown>;
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? String(value)
      : undefined;

/** Provider events (as the Cloud API documents it) whose status is another one's. */
const STATUS_OF_EVENT: Record<string, string> = { REINSTATED: 'APPROVED', UNARCHIVED: 'APPROVED' };

/** What a `message_template_*` change says about the template (null: nothing we keep). */
export function templateDecisionOf(field: string, value: Loose, at: Date): TemplateDecision | null {
  if (field === 'message_template_status_update') {
    const event = text(value.event);
    if (!event) return null;
    const reason = text(value.reason);
    const status = STATUS_OF_EVENT[event] ?? event;
    return {
      status,
      rejection_reason: reason && reason !== 'NONE' ? reason : null,
      ...(text(value.message_template_category) && {
        category: text(value.message_template_category),
      }),
      at,
    };
  }
  if (field === 'template_category_update') {
    const category = text(value.new_category);
    return category ? { category, at } : null;
  }
  if (field === 'message_template_quality_update') {
    const quality = text(value.new_quality_score);
    return quality ? { quality_score: quality, at } : null;
  }
  return null;
}

async function findTemplate(
  deps: TemplateNoticeDeps,
  company_id: number,
  value: Loose,
): Promise<StoredTemplate | null> {
  const providerId = text(value.message_template_id);
  const byId = providerId ? await deps.templates.findByProviderId(company_id, providerId) : null;
  if (byId) return byId;
  const name = text(value.message_template_name);
  const language = text(value.message_template_language);
  return name && language ? deps.templates.find(company_id, name, language) : null;
}

/**
 * A template decision, category or quality change → the stored template, and
 * for approvals and rejections the reserved events, kept with a notice of this provider message
 * so that a redelivery publishes nothing twice.
 */
export async function noteTemplateChange(
  deps: TemplateNoticeDeps,
  message: ProviderEventMessage,
  now = new Date(),
): Promise<void> {
  const { company_id } = message;
  const receivedAt = new Date(message.received_at);
  const decision = templateDecisionOf(message.field, message.value, receivedAt);
  if (!decision) {
    deps.logger.debug({ field: message.field }, 'template notice without a change we keep');
    return;
  }
  const template = await findTemplate(deps, company_id, message.value);
  if (!template) {
    if (now.getTime() - receivedAt.getTime() < UNKNOWN_TEMPLATE_RETRY_MS) {
      throw new Error('template decision for a template not stored yet; retried');
    }
    deps.logger.info(
      { company_id, template: text(message.value.message_template_name) },
      'template decision for an unknown template; the periodic sync adopts it',
    );
    return;
  }
  const key = templateKey(company_id, template.name, template.language);
  const changed = await deps.templates.applyDecision(key, decision);
  if (!changed) {
    deps.logger.info({ company_id, template: template.name }, 'older template decision ignored');
    return;
  }

  const events: BrokerEvent[] = [];
  if (
    deps.emitReservedEvents &&
    (decision.status === 'APPROVED' || decision.status === 'REJECTED')
  ) {
    const name = decision.status === 'APPROVED' ? 'template_approved' : 'template_rejected';
    events.push(
      brokerEvent(
        name,
        company_id,
        {
          template_id: template.id,
          template_name: template.name,
          template_language: template.language,
          reason: decision.rejection_reason ?? null,
          company_id,
        },
        now,
        stableEventId('template-notice', message.id),
      ),
    );
  }
  if (events.length === 0) return;
  await storeNotice(deps, message, events, now);
}
