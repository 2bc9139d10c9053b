import { createHash } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import multer from 'multer';
import {
  CAMPAIGN_ID_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  SendMediaRequestSchema,
  SendMessageRequestSchema,
  SendTemplateRequestSchema,
  type OrgContext,
} from '@switchboard/contracts';
import { AppError, orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import {
  contentOfMedia,
  contentOfMessage,
  contentOfTemplate,
} from '../../domain/sending/content-of';
import type { SendAnswer } from '../../domain/sending/send-answer';
import type { Sender } from '../../domain/sending/send-message';
import type { SendBody } from '../../domain/sending/send-types';
import { signedInUserOf } from './caller';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The `Idempotency-Key` header (forwarded by the gateway), with a fingerprint of the request. */
function idempotencyOf(req: Request, operation: string, request: unknown, extra = '') {
  const key = req.header(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new AppError(
      'validation_failed',
      'Idempotency-Key: must be 1 to 255 visible ASCII characters',
    );
  }
  const fingerprint = createHash('sha256')
    .update(`${operation}\n${JSON.stringify(request)}\n${extra}`)
    .digest('hex');
  return { scope: 'api' as const, key, fingerprint };
}

/** An API campaign's send names its campaign (campaigns only: the gateway never forwards it). */
function campaignOf(req: Request): { campaign_id?: number } {
  const value = req.header(CAMPAIGN_ID_HEADER);
  return value && /^[1-9][0-9]{0,14}$/.test(value) ? { campaign_id: Number(value) } : {};
}

/** A message sent from the console names the agent who sent it. */
function agentOf(req: Request): { sent_by_agent_id?: number } {
  const user = signedInUserOf(req);
  return user ? { sent_by_agent_id: user.user_id } : {};
}

function answer(res: Response, sent: SendAnswer): void {
  if (sent.replayed) res.setHeader('Idempotent-Replayed', 'true');
  res.status(sent.http_status).json(sent.body);
}

/** Reads a multipart body (the gateway streams it through unchanged) into fields and one file. */
export function readMultipart(req: Request, res: Response, maxBytes: number): Promise<void> {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 64 * 1024 },
  }).single('file');
  return new Promise((resolve, reject) => {
    upload(req, res, (error: unknown) => {
      if (!error) return resolve();
      if (error instanceof multer.MulterError) {
        return reject(
          error.code === 'LIMIT_FILE_SIZE'
            ? new AppError('payload_too_large', `file: must be at most ${maxBytes} bytes`)
            : new AppError('validation_failed', `${error.field ?? 'file'}: ${error.message}`),
        );
      }
      reject(new AppError('malformed_json', 'Request body is not valid multipart/form-data'));
    });
  });
}

/** The API's send operations: parse, send once (per idempotency key), answer as the send did. */
export function sendRoutes(router: Router, deps: { sender: Sender; mediaMaxBytes: number }): void {
  /**
   * One send: to `request.phone`, from the number it names (else the first), once per
   * idempotency key (fingerprinted with the request and `extra`), by the signed-in agent if any.
   */
  async function sendAndAnswer(
    req: Request,
    res: Response,
    send: {
      organization: OrgContext;
      operation: 'sendMessageToPhoneNumber' | 'sendtemplatemessage' | 'sendmedia';
      request: { phone: string; from_phone_number_id?: string | undefined };
      body: SendBody;
      /** Beyond the request, what makes two sends different (an uploaded file's hash). */
      extra?: string;
      /** Only text and template sends may name an API campaign. */
      campaign: boolean;
    },
  ): Promise<void> {
    const { phone, from_phone_number_id } = send.request;
    answer(
      res,
      await deps.sender.send({
        organization: send.organization,
        recipient: { phone },
        ...(from_phone_number_id ? { from_phone_number_id } : {}),
        ...send.body,
        idempotency: idempotencyOf(req, send.operation, send.request, send.extra),
        ...(send.campaign ? campaignOf(req) : {}),
        ...agentOf(req),
        mayFail: true,
      }),
    );
  }

  serveOperation(router, 'sendMessageToPhoneNumber', async (req, res) => {
    const organization = orgContext(req);
    const request = parseInput(SendMessageRequestSchema, req.body ?? {});
    const { phone: _phone, from_phone_number_id: _from, ...rest } = request;
    await sendAndAnswer(req, res, {
      organization,
      operation: 'sendMessageToPhoneNumber',
      request,
      body: { content: contentOfMessage(rest) },
      campaign: true,
    });
  });

  serveOperation(router, 'sendtemplatemessage', async (req, res) => {
    const organization = orgContext(req);
    const request = parseInput(SendTemplateRequestSchema, req.body ?? {});
    const { phone: _phone, from_phone_number_id: _from, ...rest } = request;
    await sendAndAnswer(req, res, {
      organization,
      operation: 'sendtemplatemessage',
      request,
      body: { content: contentOfTemplate(rest) },
      campaign: true,
    });
  });

  serveOperation(router, 'sendmedia', async (req, res) => {
    const organization = orgContext(req);
    if (req.is('multipart/form-data')) await readMultipart(req, res, deps.mediaMaxBytes);
    const request = parseInput(SendMediaRequestSchema, req.body ?? {});
    const { phone: _phone, url, from_phone_number_id: _from, ...rest } = request;
    const file = req.file;
    let body: SendBody;
    let fileHash = '';
    if (file) {
      fileHash = createHash('sha256').update(file.buffer).digest('hex');
      body = {
        upload: {
          buffer: file.buffer,
          mimeType: file.mimetype,
          filename: file.originalname || rest.filename || 'file',
        },
        contentFor: (mediaId) => contentOfMedia(rest, { mediaId }),
      };
    } else if (url) {
      body = { content: contentOfMedia(rest, { link: url }) };
    } else {
      throw new AppError('validation_failed', 'url: url or a multipart file is required');
    }
    await sendAndAnswer(req, res, {
      organization,
      operation: 'sendmedia',
      request,
      body,
      extra: fileHash,
      campaign: false,
    });
  });
}
