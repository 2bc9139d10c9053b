import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import express from 'express';
import { GraphError, invalidParameter, unknownObject } from '../../domain/graph-error';
import type { SimulatorContext } from '../../simulator-context';
import { authenticateBearer } from './authorize';
import { downloadMediaRoute, uploadMediaRoute } from './media-routes';
import { deleteNodeRoute, editTemplateRoute, getNodeRoute } from './node-routes';
import { sendMessageRoute } from './send-message-route';
import { openUploadSessionRoute, uploadFileRoute } from './upload-session-routes';
import {
  createTemplateRoute,
  deleteTemplatesRoute,
  listPhoneNumbersRoute,
  listTemplatesRoute,
} from './template-routes';

const JSON_LIMIT = '4mb';

/** The Cloud API subset: every route needs a bearer token; every failure is a Graph error body. */
export function createGraphRouter(ctx: SimulatorContext): express.Router {
  const router = express.Router();
  router.use(authenticateBearer(ctx));
  // Raw bytes, before the JSON parser: a file of a resumable upload session.
  router.post(/^\/upload(:|%3A)[^/]+$/i, ...uploadFileRoute(ctx));
  router.use(
    express.json({
      limit: JSON_LIMIT,
      verify: (req, _res, buffer) => {
        (req as Request & { rawBody?: string }).rawBody = buffer.toString('utf8');
      },
    }),
  );
  router.post('/:phoneNumberId/messages', sendMessageRoute(ctx));
  router.post('/:phoneNumberId/media', uploadMediaRoute(ctx));
  router.get('/whatsapp_business/attachments', downloadMediaRoute(ctx));
  router.post('/:wabaId/message_templates', createTemplateRoute(ctx));
  router.get('/:wabaId/message_templates', listTemplatesRoute(ctx));
  router.delete('/:wabaId/message_templates', deleteTemplatesRoute(ctx));
  router.get('/:wabaId/phone_numbers', listPhoneNumbersRoute(ctx));
  router.post('/:appId/uploads', openUploadSessionRoute(ctx));
  router.get('/:id', getNodeRoute(ctx));
  router.delete('/:id', deleteNodeRoute(ctx));
  router.post('/:id', editTemplateRoute(ctx));
  router.use(unknownPath);
  router.use(graphErrorHandler(ctx));
  return router;
}

/** Graph's answers for paths it does not know: 2500 for extra components, 100/33 for an object. */
const unknownPath: RequestHandler = (req) => {
  const segments = req.path.split('/').filter((segment) => segment !== '');
  if (segments.length === 1) throw unknownObject(req.method, segments[0]!);
  const rest = segments.length > 1 ? `/${segments.slice(1).join('/')}` : '/';
  throw new GraphError(2500, { message: `Unknown path components: ${rest}` });
};

function graphErrorHandler(ctx: SimulatorContext): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const graphError = toGraphError(error);
    if (!graphError) {
      ctx.log.error('unexpected error in a Cloud API route', {
        error: error instanceof Error ? error.stack : String(error),
      });
    }
    const answer = graphError ?? new GraphError(1, { httpStatus: 500 });
    res.status(answer.httpStatus).json(answer.toBody());
  };
}

function toGraphError(error: unknown): GraphError | undefined {
  if (error instanceof GraphError) return error;
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.parse.failed')
    return invalidParameter('The request body is not valid JSON.');
  if (type === 'entity.too.large') {
    return invalidParameter(`The request body is larger than ${JSON_LIMIT}.`);
  }
  return undefined;
}
