import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response, Router } from 'express';
import multer from 'multer';
import {
  API_OPERATIONS,
  CAMPAIGN_ID_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  SendMediaRequestSchema,
  SendMessageRequestSchema,
  SendTemplateRequestSchema,
  type OrgContext,
} from '@switchboard/contracts';
import {
  AppError,
  answerBeforeExpress,
  byteSize,
  checkInput,
  orgContext,
  parseInput,
  readStatedBody,
  serveOperation,
  statedBodyLength,
  type Logger,
  type PreRoute,
  type ServiceMetrics,
  checkInternalSecret,
  endJson,
} from '@switchboard/service-kit';
import {
  contentOfMedia,
  contentOfMessage,
  contentOfTemplate,
} from '../../domain/sending/content-of';
import type { SendAnswer } from '../../domain/sending/send-answer';
import type { Sender } from '../../domain/sending/send-message';
import type { SendBody } from '../../domain/sending/send-types';
import { headerOf, signedInUserOf } from './caller';

/** What a send reads of its request besides the body: its headers. */
type Headed = { headers: IncomingHttpHeaders };

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The `Idempotency-Key` header (forwarded by the gateway), with a fingerprint of the request. */
function idempotencyOf(req: Headed, operation: string, request: unknown, extra = '') {
  const key = headerOf(req, IDEMPOTENCY_KEY_HEADER);
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
function campaignOf(req: Headed): { campaign_id?: number } {
  const value = headerOf(req, CAMPAIGN_ID_HEADER);
  return value && /^[1-9][0-9]{0,14}$/.test(value) ? { campaign_id: Number(value) } : {};
}

/** A message sent from the console names the agent who sent it. */
function agentOf(req: Headed): { sent_by_agent_id?: number } {
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

interface SendOf {
  organization: OrgContext;
  operation: 'sendMessageToPhoneNumber' | 'sendtemplatemessage' | 'sendmedia';
  request: { phone: string; from_phone_number_id?: string | undefined };
  body: SendBody;
  /** Beyond the request, what makes two sends different (an uploaded file's hash). */
  extra?: string;
  /** Only text and template sends may name an API campaign. */
  campaign: boolean;
}

/**
 * One send: to `request.phone`, from the number it names (else the first), once per
 * idempotency key (fingerprinted with the request and `extra`), by the signed-in agent if any.
 */
function sendOne(sender: Sender, req: Headed, send: SendOf): Promise<SendAnswer> {
  const { phone, from_phone_number_id } = send.request;
  return sender.send({
    organization: send.organization,
    recipient: { phone },
    ...(from_phone_number_id ? { from_phone_number_id } : {}),
    ...send.body,
    idempotency: idempotencyOf(req, send.operation, send.request, send.extra),
    ...(send.campaign ? campaignOf(req) : {}),
    ...agentOf(req),
    mayFail: true,
  });
}

/** The text and template sends: a JSON body, parsed into the send it asks for. */
const JSON_SENDS = {
  sendMessageToPhoneNumber: (organization: OrgContext, body: unknown): SendOf => {
    const request = parseInput(SendMessageRequestSchema, body);
    const { phone: _phone, from_phone_number_id: _from, ...rest } = request;
    return {
      organization,
      operation: 'sendMessageToPhoneNumber',
      request,
      body: { content: contentOfMessage(rest) },
      campaign: true,
    };
  },
  sendtemplatemessage: (organization: OrgContext, body: unknown): SendOf => {
    const request = parseInput(SendTemplateRequestSchema, body);
    const { phone: _phone, from_phone_number_id: _from, ...rest } = request;
    return {
      organization,
      operation: 'sendtemplatemessage',
      request,
      body: { content: contentOfTemplate(rest) },
      campaign: true,
    };
  },
} as const;

/** The API's send operations: parse, send once (per idempotency key), answer as the send did. */
export function sendRoutes(router: Router, deps: { sender: Sender; mediaMaxBytes: number }): void {
  async function sendAndAnswer(req: Request, res: Response, send: SendOf): Promise<void> {
    answer(res, await sendOne(deps.sender, req, send));
  }

  for (const name of ['sendMessageToPhoneNumber', 'sendtemplatemessage'] as const) {
    serveOperation(router, name, async (req, res) => {
      const organization = orgContext(req);
      await sendAndAnswer(req, res, JSON_SENDS[name](organization, req.body ?? {}));
    });
  }

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

/** A JSON content type as express' JSON parser reads it: UTF-8 (the default) and nothing else. */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * The text and template sends on node:http before express, when their request is the usual one:
 * the exact path, no query string, a JSON body of stated length within the limit. What express'
 * chain does for them is done here in the same order with the same answers: the body parsed (not
 * JSON, or not an object: `malformed_json`; an array: the input guard's refusal), its text
 * checked for what cannot be stored, the internal secret, the organization, then the send.
 * Express' routing, body parsers and response helpers were a large part of messaging's own work
 * per send. Any other request (a form, a chunked or large body, a query string) is left to the
 * express routes above, which answer it as before.
 */
export function sendFastPath(deps: {
  sender: Sender;
  internalSecret: string;
  bodyLimit: string;
  logger: Logger;
  metrics: ServiceMetrics;
}): PreRoute {
  const limit = byteSize(deps.bodyLimit) ?? 0;
  const routes = new Map<string, keyof typeof JSON_SENDS>(
    (['sendMessageToPhoneNumber', 'sendtemplatemessage'] as const).map((name) => [
      API_OPERATIONS.get(name)!.path,
      name,
    ]),
  );
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return false;
    const path = req.url ?? '';
    const name = routes.get(path);
    if (name === undefined) return false;
    const contentType = req.headers['content-type'];
    if (contentType === undefined || !PLAIN_JSON.test(contentType)) return false;
    const length = statedBodyLength(req);
    if (length === undefined || length === 0 || length > limit) return false;
    answerBeforeExpress(deps, req, res, { route: path, path }, async () => {
      const body = parseJsonObject(await readStatedBody(req, length));
      checkInternalSecret(req, deps.internalSecret);
      const sent = await sendOne(deps.sender, req, JSON_SENDS[name](orgContext(req), body));
      if (sent.replayed) res.setHeader('Idempotent-Replayed', 'true');
      endJson(res, sent.http_status, JSON.stringify(sent.body));
    });
    return true;
  };
}

/** A JSON body as express' parser and input guard take it: an object, its text storable. */
function parseJsonObject(raw: Buffer): Record<string, unknown> {
  let text = raw.toString('utf8');
  // The parser's decoder drops a byte order mark.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('malformed_json', 'Request body is not valid JSON');
  }
  if (Array.isArray(body)) {
    throw new AppError('validation_failed', 'body: must be a JSON object, not an array');
  }
  if (typeof body !== 'object' || body === null) {
    // Strict parsing: only an object or an array is a JSON body.
    throw new AppError('malformed_json', 'Request body is not valid JSON');
  }
  checkInput(body, 'body');
  return body as Record<string, unknown>;
}
