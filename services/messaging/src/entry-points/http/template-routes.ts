import type { Router } from 'express';
import {
  CreateTemplateRequestSchema,
  DeleteTemplateRequestSchema,
  GetTemplatesQuerySchema,
  UploadTemplateMediaRequestSchema,
  templateToCreate,
  withTemplateKey,
  type DeleteTemplateResponse,
  type TemplateResponse,
  type TemplatesResponse,
  type UploadTemplateMediaResponse,
} from '@switchboard/contracts';
import {
  AppError,
  operationInput,
  orgContext,
  parseInput,
  serveOperation,
} from '@switchboard/service-kit';
import {
  createTemplate,
  deleteTemplate,
  listTemplates,
  type TemplateDeps,
} from '../../domain/templates/manage-templates';
import {
  fetchTemplateMedia,
  uploadTemplateMedia,
  type MediaFetchPolicy,
} from '../../domain/templates/upload-template-media';
import { readMultipart } from './send-routes';

/** The API's template operations. */
export function templateRoutes(
  router: Router,
  deps: TemplateDeps & { media: MediaFetchPolicy },
): void {
  serveOperation(router, 'getTemplates', async (req, res) => {
    const { company_id } = orgContext(req);
    const query = parseInput(GetTemplatesQuerySchema, operationInput(req));
    res.json({
      status: 'success',
      ...(await listTemplates(deps, company_id, query)),
    } satisfies TemplatesResponse);
  });

  serveOperation(router, 'createTemplate', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(CreateTemplateRequestSchema, operationInput(req));
    const template = await createTemplate(deps, company_id, templateToCreate(request));
    res.status(201).json({ status: 'success', template } satisfies TemplateResponse);
  });

  serveOperation(router, 'uploadTemplateMedia', async (req, res) => {
    const { company_id } = orgContext(req);
    if (req.is('multipart/form-data')) await readMultipart(req, res, deps.media.maxBytes);
    const request = parseInput(UploadTemplateMediaRequestSchema, operationInput(req));
    const media = req.file
      ? { buffer: req.file.buffer, mimeType: req.file.mimetype, filename: req.file.originalname }
      : request.url
        ? await fetchTemplateMedia(request.url, deps.media)
        : undefined;
    if (!media) throw new AppError('validation_failed', 'url: url or a multipart file is required');
    const uploaded = await uploadTemplateMedia(deps, company_id, media);
    res.json({ status: 'success', ...uploaded } satisfies UploadTemplateMediaResponse);
  });

  serveOperation(router, 'deleteTemplate', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(DeleteTemplateRequestSchema, operationInput(req));
    const deleted = await deleteTemplate(deps, company_id, withTemplateKey(request));
    res.json({ status: 'success', deleted } satisfies DeleteTemplateResponse);
  });
}
