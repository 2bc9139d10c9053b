import { randomBytes } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { GraphError, invalidParameter } from '../../domain/graph-error';
import type { SimulatorContext } from '../../simulator-context';

/** What a template header example may be (as the Cloud API documents it): type and largest size. */
const UPLOAD_RULES: Record<string, number> = {
  'image/jpeg': 5 * 1024 * 1024,
  'image/png': 5 * 1024 * 1024,
  'video/mp4': 16 * 1024 * 1024,
  'video/3gpp': 16 * 1024 * 1024,
  'application/pdf': 100 * 1024 * 1024,
};

/**
 * The Resumable Upload API that gives a template header its example: `POST /{app-id}/uploads?
 * file_length=&file_type=` opens a session `{id:"upload:…"}`; `POST /upload:…` with the bytes
 * (header `file_offset: 0`) answers the handle `{h}` that goes in `example.header_handle`.
 */
export function openUploadSessionRoute(ctx: SimulatorContext): RequestHandler {
  return (req, res) => {
    const fileType = typeof req.query.file_type === 'string' ? req.query.file_type : '';
    const fileLength = Number(req.query.file_length);
    const max = UPLOAD_RULES[fileType];
    if (max === undefined) {
      throw invalidParameter(
        `Param file_type must be one of ${Object.keys(UPLOAD_RULES).join(', ')} - got "${fileType}".`,
      );
    }
    if (!Number.isInteger(fileLength) || fileLength <= 0) {
      throw invalidParameter('Param file_length must be a positive integer.');
    }
    if (fileLength > max) {
      throw invalidParameter(`Param file_length: ${fileType} files may be at most ${max} bytes.`);
    }
    const id = `upload:${randomBytes(12).toString('base64url')}`;
    ctx.state.uploadSessions.set(id, {
      file_type: fileType,
      file_length: fileLength,
      token: String(res.locals.token),
    });
    res.json({ id });
  };
}

export function uploadFileRoute(ctx: SimulatorContext): RequestHandler[] {
  return [
    express.raw({ type: () => true, limit: 100 * 1024 * 1024 }),
    (req, res) => {
      const id = decodeURIComponent(req.path.slice(1));
      const session = ctx.state.uploadSessions.get(id);
      if (!session || session.token !== res.locals.token) {
        throw new GraphError(100, { message: `(#100) Upload session ${id} does not exist.` });
      }
      if (String(req.headers.file_offset ?? '0') !== '0') {
        throw invalidParameter('Only file_offset 0 is supported.');
      }
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (body.length !== session.file_length) {
        throw invalidParameter(
          `The file has ${body.length} bytes; the session was opened for ${session.file_length}.`,
        );
      }
      ctx.state.uploadSessions.delete(id);
      const handle = `4::${randomBytes(24).toString('base64url')}`;
      ctx.state.uploadHandles.set(handle, { file_type: session.file_type, file_size: body.length });
      res.json({ h: handle });
    },
  ];
}
