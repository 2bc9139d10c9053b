import type { SimulatorContext } from '../../simulator-context';
import type { TemplateRecord } from '../../state/records';
import { matchesTemplateReview, takeMatchingRule } from '../faults/fault-rules';
import { invalidParameter } from '../graph-error';
import { mintNumericId } from '../mint-ids';
import { postManagementWebhook } from '../webhooks/post-management-webhook';
import type { NewTemplate } from './validate-template-creation';
import { templateError } from './validate-template-creation';

export const TEMPLATES_PER_WABA = 250;
const NAME_LOCK_MS = 30 * 24 * 60 * 60 * 1000;

/** Names of approved templates deleted recently, per `waba_id:name:language` (locked 30 days). */
const lockKey = (wabaId: string, name: string, language: string): string =>
  `${wabaId}:${name}:${language}`;

export function templatesOfWaba(ctx: SimulatorContext, wabaId: string): TemplateRecord[] {
  return [...ctx.state.templates.values()].filter((t) => t.waba_id === wabaId);
}

/** Stores a new template as PENDING and schedules its review. */
export function createTemplate(
  ctx: SimulatorContext,
  wabaId: string,
  input: NewTemplate,
  status: TemplateRecord['status'] = 'PENDING',
): TemplateRecord {
  const existing = templatesOfWaba(ctx, wabaId);
  if (existing.some((t) => t.name === input.name && t.language === input.language)) {
    throw templateError(
      `Content in ${input.language} already exists for template ${input.name}.`,
      'Content in this language already exists',
      2388024,
    );
  }
  const lockedAt = ctx.state.deletedTemplateNames.get(lockKey(wabaId, input.name, input.language));
  if (lockedAt !== undefined && ctx.now() - lockedAt < NAME_LOCK_MS) {
    throw templateError(
      `New ${input.language} content can't be added while the existing content is being deleted. Try again in 4 weeks or use a new name.`,
      'Language is being deleted',
      2388023,
    );
  }
  if (existing.length >= TEMPLATES_PER_WABA) {
    throw templateError(
      `This WhatsApp Business Account has reached its limit of ${TEMPLATES_PER_WABA} message templates.`,
      'Message template limit reached',
      2388019,
    );
  }
  const record: TemplateRecord = {
    ...input,
    id: mintNumericId(),
    waba_id: wabaId,
    status,
    rejected_reason: 'NONE',
    created_at: ctx.now(),
  };
  ctx.state.templates.set(record.id, record);
  if (status === 'PENDING') scheduleReview(ctx, record.id);
  return record;
}

/**
 * After `templateReviewDelayMs` a pending template is decided: by the oldest matching
 * `template_decision` fault, else REJECTED (INVALID_FORMAT) when its name contains `reject`,
 * else APPROVED. The decision is posted as `message_template_status_update`.
 */
export function scheduleReview(ctx: SimulatorContext, templateId: string): void {
  ctx.scheduler.run(
    async () => {
      if (!(await ctx.scheduler.sleep(ctx.options.templateReviewDelayMs))) return;
      const template = ctx.state.templates.get(templateId);
      if (!template || template.status !== 'PENDING') return;
      const rule = takeMatchingRule(ctx.state.faults, (candidate) =>
        matchesTemplateReview(candidate, template.waba_id, template.name),
      );
      const decision =
        rule?.template_decision ?? (template.name.includes('reject') ? 'REJECTED' : 'APPROVED');
      if (decision === 'PENDING') return;
      const reason =
        decision === 'REJECTED' ? (rule?.rejection_reason ?? 'INVALID_FORMAT') : 'NONE';
      template.status = decision;
      template.rejected_reason = reason;
      await postTemplateStatus(ctx, template, decision, reason);
    },
    (error) => ctx.log.error('template review failed', { error: String(error) }),
  );
}

export function postTemplateStatus(
  ctx: SimulatorContext,
  template: TemplateRecord,
  event: string,
  reason: string | null,
): Promise<unknown> {
  return postManagementWebhook(ctx, template.waba_id, 'message_template_status_update', {
    event,
    message_template_id: Number(template.id),
    message_template_name: template.name,
    message_template_language: template.language,
    reason,
    message_template_category: template.category,
    ...(event === 'REJECTED' && {
      rejection_info: {
        reason: `The template was rejected: ${reason}.`,
        recommendation: 'Edit the template and submit it again.',
      },
    }),
  });
}

/** `DELETE /{waba_id}/message_templates?name=…[&hsm_id=…]`: every language, or the one with that id. */
export function deleteTemplates(
  ctx: SimulatorContext,
  wabaId: string,
  name: string,
  hsmId?: string,
): void {
  const matching = templatesOfWaba(ctx, wabaId).filter(
    (t) => t.name === name && (hsmId === undefined || t.id === hsmId),
  );
  if (matching.length === 0) {
    throw templateError(`Message template "${name}" was not found.`, 'Message template not found');
  }
  if (matching.some((t) => t.status === 'DISABLED')) {
    throw invalidParameter(`Message template "${name}" is disabled and cannot be deleted.`);
  }
  for (const template of matching) {
    if (template.status === 'APPROVED') {
      ctx.state.deletedTemplateNames.set(
        lockKey(wabaId, template.name, template.language),
        ctx.now(),
      );
    }
    ctx.state.templates.delete(template.id);
  }
}
