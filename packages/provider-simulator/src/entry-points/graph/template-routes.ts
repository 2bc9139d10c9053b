import type { RequestHandler } from 'express';
import { describePhoneNumber } from '../../domain/accounts/describe-accounts';
import { throughputLimit } from '../../domain/messages/accept-send';
import { invalidParameter } from '../../domain/graph-error';
import type { TemplateListQuery } from '../../domain/templates/list-templates';
import { listTemplates } from '../../domain/templates/list-templates';
import {
  createTemplate,
  deleteTemplates,
  templatesOfWaba,
} from '../../domain/templates/manage-templates';
import { validateTemplateCreation } from '../../domain/templates/validate-template-creation';
import type { SimulatorContext } from '../../simulator-context';
import { baseUrlOf, requireWaba } from './authorize';

const queryString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** `POST /{waba_id}/message_templates` → `{id, status:"PENDING", category}`. */
export function createTemplateRoute(ctx: SimulatorContext): RequestHandler {
  return (req, res) => {
    const waba = requireWaba(ctx, res.locals.token, String(req.params.wabaId), 'post');
    const template = createTemplate(ctx, waba.id, validateTemplateCreation(req.body));
    res.json({ id: template.id, status: template.status, category: template.category });
  };
}

/** `GET /{waba_id}/message_templates?fields=&limit=&after=&before=&name=&status=&category=&language=`. */
export function listTemplatesRoute(ctx: SimulatorContext): RequestHandler {
  return (req, res) => {
    const waba = requireWaba(ctx, res.locals.token, String(req.params.wabaId), 'get');
    const keys = ['fields', 'limit', 'after', 'before', 'name', 'status', 'category', 'language'];
    const query = Object.fromEntries(
      keys
        .map((key) => [key, queryString(req.query[key])])
        .filter(([, value]) => value !== undefined),
    ) as TemplateListQuery;
    const pageUrl = new URL(req.originalUrl, baseUrlOf(ctx, req));
    res.json(listTemplates(templatesOfWaba(ctx, waba.id), query, pageUrl));
  };
}

/** `DELETE /{waba_id}/message_templates?name=…[&hsm_id=…]` → `{success:true}`. */
export function deleteTemplatesRoute(ctx: SimulatorContext): RequestHandler {
  return (req, res) => {
    const waba = requireWaba(ctx, res.locals.token, String(req.params.wabaId), 'delete');
    const name = queryString(req.query.name);
    if (!name) throw invalidParameter('The parameter name is required.');
    deleteTemplates(ctx, waba.id, name, queryString(req.query.hsm_id));
    res.json({ success: true });
  };
}

/** `GET /{waba_id}/phone_numbers` → `{data:[…], paging}`. */
export function listPhoneNumbersRoute(ctx: SimulatorContext): RequestHandler {
  return (req, res) => {
    const waba = requireWaba(ctx, res.locals.token, String(req.params.wabaId), 'get');
    const fields =
      queryString(req.query.fields) ??
      'verified_name,code_verification_status,display_phone_number,quality_rating,platform_type,throughput,id';
    const data = ctx.state
      .channelsOfWaba(waba.id)
      .map((channel) => describePhoneNumber(channel, fields, throughputLimit(ctx, channel)));
    const cursor = (id: unknown): string => Buffer.from(String(id)).toString('base64url');
    res.json({
      data,
      ...(data.length > 0 && {
        paging: { cursors: { before: cursor(data[0]!.id), after: cursor(data.at(-1)!.id) } },
      }),
    });
  };
}
