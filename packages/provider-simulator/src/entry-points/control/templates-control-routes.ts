import type { Router } from 'express';
import { z } from 'zod';
import { GraphError } from '../../domain/graph-error';
import { describeTemplate } from '../../domain/templates/list-templates';
import {
  createTemplate,
  postTemplateStatus,
  templatesOfWaba,
} from '../../domain/templates/manage-templates';
import { validateTemplateCreation } from '../../domain/templates/validate-template-creation';
import type { SimulatorContext } from '../../simulator-context';
import type { TemplateRecord } from '../../state/records';
import { postManagementWebhook } from '../../domain/webhooks/post-management-webhook';
import { ControlError, parseBody } from './control-error';

const ALL_FIELDS =
  'id,name,status,category,sub_category,language,parameter_format,components,rejected_reason';

const TEMPLATE_STATUSES = [
  'APPROVED',
  'PENDING',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'IN_APPEAL',
  'PENDING_DELETION',
  'LIMIT_EXCEEDED',
  'ARCHIVED',
] as const;

const PreloadSchema = z
  .object({ waba_id: z.string().min(1), status: z.enum(TEMPLATE_STATUSES).default('APPROVED') })
  .loose();
const QualityChangeSchema = z.object({
  quality_score: z.enum(['GREEN', 'YELLOW', 'RED', 'UNKNOWN']),
});
const CategoryChangeSchema = z.object({
  category: z.enum(['MARKETING', 'UTILITY', 'AUTHENTICATION']),
});
const StatusChangeSchema = z.object({
  status: z.enum(TEMPLATE_STATUSES),
  reason: z.string().min(1).nullable().optional(),
});

/**
 * Shortcuts around review for tests and demos: `POST /sim/templates` stores a template already
 * APPROVED (or any status; same creation body as the Cloud API plus `waba_id`), `GET /sim/templates`,
 * and `POST /sim/templates/{id}/status` moves one and posts `message_template_status_update`;
 * `/quality` and `/category` post `message_template_quality_update` and `template_category_update`.
 */
export function addTemplateControlRoutes(router: Router, ctx: SimulatorContext): void {
  router.post('/templates', (req, res) => {
    const { waba_id: wabaId, status, ...creation } = parseBody(PreloadSchema, req.body);
    if (!ctx.state.wabas.has(wabaId))
      throw new ControlError(404, 'unknown_waba', `No WABA ${wabaId}.`);
    let template: TemplateRecord;
    try {
      template = createTemplate(ctx, wabaId, validateTemplateCreation(creation), status);
    } catch (error) {
      if (error instanceof GraphError) {
        throw new ControlError(422, 'invalid_template', error.details ?? error.message);
      }
      throw error;
    }
    res.status(201).json({ template: describeTemplate(template, ALL_FIELDS) });
  });

  router.get('/templates', (req, res) => {
    const wabaId = typeof req.query.waba_id === 'string' ? req.query.waba_id : undefined;
    const templates = wabaId ? templatesOfWaba(ctx, wabaId) : [...ctx.state.templates.values()];
    res.json({ templates: templates.map((t) => describeTemplate(t, ALL_FIELDS)) });
  });

  router.post('/templates/:id/status', async (req, res) => {
    const input = parseBody(StatusChangeSchema, req.body);
    const template = ctx.state.templates.get(req.params.id);
    if (!template) throw new ControlError(404, 'not_found', 'No template with this id.');
    template.status = input.status;
    const reason =
      input.reason !== undefined
        ? input.reason
        : input.status === 'REJECTED'
          ? 'INVALID_FORMAT'
          : 'NONE';
    template.rejected_reason = input.status === 'REJECTED' ? (reason ?? 'NONE') : 'NONE';
    await postTemplateStatus(ctx, template, input.status, reason);
    res.json({ template: describeTemplate(template, ALL_FIELDS) });
  });

  router.post('/templates/:id/quality', async (req, res) => {
    const input = parseBody(QualityChangeSchema, req.body);
    const template = requireTemplate(ctx, req.params.id);
    const previous = template.quality_score ?? 'UNKNOWN';
    template.quality_score = input.quality_score;
    await postManagementWebhook(ctx, template.waba_id, 'message_template_quality_update', {
      previous_quality_score: previous,
      new_quality_score: input.quality_score,
      message_template_id: Number(template.id),
      message_template_name: template.name,
      message_template_language: template.language,
    });
    res.json({ template: describeTemplate(template, ALL_FIELDS) });
  });

  router.post('/templates/:id/category', async (req, res) => {
    const input = parseBody(CategoryChangeSchema, req.body);
    const template = requireTemplate(ctx, req.params.id);
    const previous = template.category;
    template.category = input.category;
    await postManagementWebhook(ctx, template.waba_id, 'template_category_update', {
      message_template_id: Number(template.id),
      message_template_name: template.name,
      message_template_language: template.language,
      old_category: previous,
      new_category: input.category,
    });
    res.json({ template: describeTemplate(template, ALL_FIELDS) });
  });
}

function requireTemplate(ctx: SimulatorContext, id: string | undefined): TemplateRecord {
  const template = id === undefined ? undefined : ctx.state.templates.get(id);
  if (!template) throw new ControlError(404, 'not_found', 'No template with this id.');
  return template;
}
