import type { RequestHandler } from 'express';
import { describePhoneNumber, describeWaba } from '../../domain/accounts/describe-accounts';
import { invalidParameter, unknownObject } from '../../domain/graph-error';
import { throughputLimit } from '../../domain/messages/accept-send';
import { describeTemplate } from '../../domain/templates/list-templates';
import { scheduleReview } from '../../domain/templates/manage-templates';
import { validateTemplateCreation } from '../../domain/templates/validate-template-creation';
import type { SimulatorContext } from '../../simulator-context';
import type { TemplateRecord } from '../../state/records';
import { channelFor, wabaFor } from './authorize';
import { applyMediaFault } from '../../domain/media/media-faults';
import { describeMedia, mediaFor } from './media-routes';

const fieldsOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

function templateFor(ctx: SimulatorContext, token: string, id: string): TemplateRecord | undefined {
  const template = ctx.state.templates.get(id);
  return template && wabaFor(ctx, token, template.waba_id) ? template : undefined;
}

/** `GET /{id}`: a phone number, a WABA, a media object or a template, whichever the id names. */
export function getNodeRoute(ctx: SimulatorContext): RequestHandler {
  return async (req, res) => {
    const id = String(req.params.id);
    const token: string = res.locals.token;
    const fields = fieldsOf(req.query.fields);
    const channel = channelFor(ctx, token, id);
    if (channel) {
      res.json(describePhoneNumber(channel, fields, throughputLimit(ctx, channel)));
      return;
    }
    const waba = wabaFor(ctx, token, id);
    if (waba) {
      res.json(describeWaba(waba, fields));
      return;
    }
    const media = mediaFor(ctx, token, id, req.query.phone_number_id);
    if (media) {
      if (await applyMediaFault(ctx, 'lookup', media.id, req, res)) return;
      res.json(describeMedia(ctx, req, media));
      return;
    }
    const template = templateFor(ctx, token, id);
    if (template) {
      res.json(
        describeTemplate(template, fields, [
          'id',
          'name',
          'status',
          'category',
          'language',
          'components',
        ]),
      );
      return;
    }
    throw unknownObject('get', id);
  };
}

/** `DELETE /{media_id}` → `{success:true}`. */
export function deleteNodeRoute(ctx: SimulatorContext): RequestHandler {
  return (req, res) => {
    const id = String(req.params.id);
    const media = mediaFor(ctx, res.locals.token, id, req.query.phone_number_id);
    if (!media) throw unknownObject('delete', id);
    ctx.state.media.delete(id);
    res.json({ success: true });
  };
}

const EDITABLE = new Set(['APPROVED', 'REJECTED', 'PAUSED']);

/** `POST /{template_id}` with `category` and/or `components`: the template goes back to review. */
export function editTemplateRoute(ctx: SimulatorContext): RequestHandler {
  return (req, res) => {
    const id = String(req.params.id);
    const template = templateFor(ctx, res.locals.token, id);
    if (!template) throw unknownObject('post', id);
    if (!EDITABLE.has(template.status)) {
      throw invalidParameter(`A template in status ${template.status} cannot be edited.`);
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const edited = validateTemplateCreation({
      name: template.name,
      language: template.language,
      parameter_format: template.parameter_format,
      category: body.category ?? template.category,
      components: body.components ?? template.components,
    });
    Object.assign(template, {
      category: edited.category,
      components: edited.components,
      status: 'PENDING',
      rejected_reason: 'NONE',
    });
    scheduleReview(ctx, template.id);
    res.json({ success: true });
  };
}
