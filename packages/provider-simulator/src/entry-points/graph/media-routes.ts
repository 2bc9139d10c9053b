import type { Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { GraphError, invalidParameter } from '../../domain/graph-error';
import {
  baseMimeType,
  MAX_UPLOAD_BYTES,
  mediaRuleFor,
  SUPPORTED_MIME_TYPES,
} from '../../domain/media/media-rules';
import { checkDownloadUrl, mediaDownloadUrl, storeMedia } from '../../domain/media/store-media';
import { applyMediaFault } from '../../domain/media/media-faults';
import type { SimulatorContext } from '../../simulator-context';
import type { MediaRecord } from '../../state/records';
import { baseUrlOf, channelFor, requireChannel } from './authorize';

const parseUpload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 },
}).single('file');

function receiveUpload(req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    parseUpload(req, res, (error: unknown) => {
      if (!error) return resolve();
      if (error instanceof multer.MulterError) {
        if (error.code === 'LIMIT_FILE_SIZE') {
          return reject(new GraphError(131053, { details: 'File is larger than 100 MB.' }));
        }
        return reject(invalidParameter(`Param ${error.field ?? 'file'}: ${error.message}.`));
      }
      reject(invalidParameter('The request body must be multipart/form-data.'));
    });
  });
}

/** `POST /{phone_number_id}/media`, multipart: `messaging_product`, `file`, `type`. */
export function uploadMediaRoute(ctx: SimulatorContext): RequestHandler {
  return async (req, res) => {
    const channel = requireChannel(ctx, res.locals.token, String(req.params.phoneNumberId), 'post');
    await receiveUpload(req, res);
    const fields = (req.body ?? {}) as Record<string, unknown>;
    if (fields.messaging_product === undefined) {
      throw invalidParameter('The parameter messaging_product is required.');
    }
    if (String(fields.messaging_product).toLowerCase() !== 'whatsapp') {
      throw invalidParameter(
        `Param messaging_product must be one of {WHATSAPP} - got "${String(fields.messaging_product)}".`,
      );
    }
    const file = req.file;
    if (!file) throw invalidParameter('The parameter file is required.');
    if (typeof fields.type !== 'string' || fields.type === '') {
      throw invalidParameter('The parameter type is required.');
    }
    const mimeType = fields.type;
    const rule = mediaRuleFor(mimeType);
    if (!rule) {
      throw new GraphError(131053, {
        details: `Param file must be a file with one of the following types: ${SUPPORTED_MIME_TYPES.join(', ')}. Received file of type '${baseMimeType(mimeType)}'.`,
      });
    }
    if (file.size > rule.maxBytes) {
      throw new GraphError(131053, {
        details: `File of type ${baseMimeType(mimeType)} is ${file.size} bytes; the limit is ${rule.maxBytes} bytes.`,
      });
    }
    const record = storeMedia(ctx.state, {
      phoneNumberId: channel.registration.phone_number_id,
      mimeType,
      data: file.buffer,
      filename: file.originalname,
      now: ctx.now(),
    });
    res.json({ id: record.id });
  };
}

/** The media behind an id, if this token may see it (through the channel that owns it). */
export function mediaFor(
  ctx: SimulatorContext,
  token: string,
  id: string,
  phoneNumberId?: unknown,
): MediaRecord | undefined {
  const record = ctx.state.media.get(id);
  if (!record || !channelFor(ctx, token, record.phone_number_id)) return undefined;
  if (typeof phoneNumberId === 'string' && phoneNumberId !== record.phone_number_id)
    return undefined;
  return record;
}

/** `GET /{media_id}`: a download URL valid for a few minutes. */
export function describeMedia(
  ctx: SimulatorContext,
  req: Request,
  record: MediaRecord,
): Record<string, unknown> {
  const expiresAt = ctx.now() + ctx.options.mediaUrlTtlMs;
  return {
    messaging_product: 'whatsapp',
    url: mediaDownloadUrl(baseUrlOf(ctx, req), record, expiresAt, ctx.state.mediaUrlSecret),
    mime_type: record.mime_type,
    sha256: record.sha256,
    file_size: record.file_size,
    id: record.id,
  };
}

/** The download URL itself: the bytes, with the bearer token; 404 once expired or unknown. */
export function downloadMediaRoute(ctx: SimulatorContext): RequestHandler {
  return async (req, res) => {
    const id = checkDownloadUrl(
      req.query as Record<string, unknown>,
      ctx.state.mediaUrlSecret,
      ctx.now(),
    );
    const record = id === undefined ? undefined : mediaFor(ctx, res.locals.token, id);
    if (!record) {
      res.status(404).type('text/plain').send('Not Found');
      return;
    }
    if (await applyMediaFault(ctx, 'download', record.id, req, res)) return;
    res.status(200).type(record.mime_type).send(record.data);
  };
}
