import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request } from 'express';
import {
  PROVIDER_SIGNATURE_HEADER,
  RECEIVE_BATCH_MAX_BYTES,
  RECEIVE_BATCH_PATH,
  ReceiveBatchRequestSchema,
  type InboundChannel,
  type ReceiveBatchItem,
  type ReceiveBatchResponse,
  type ReceiveBatchResult,
} from '@switchboard/contracts';
import {
  AppError,
  answerBeforeExpress,
  byteSize,
  describeZodError,
  errorBody,
  readStatedBody,
  secretsMatch,
  statedBodyLength,
  type Logger,
  type PreRoute,
  type ServiceMetrics,
  answerableError,
  checkInternalSecret,
  endJson,
} from '@switchboard/service-kit';
import { hasValidSignature } from '../../domain/verify-signature';
import type { WebhookIntake } from '../../domain/webhook-intake';
import type { ChannelDirectory } from '../../domain/channel-directory';

const RECEIVE_PATH = '/webhook/svc/receive/:token';
/** The receive path with a token of the characters tokens are made of (others are never found). */
const PLAIN_RECEIVE_PATH = /^\/webhook\/svc\/receive\/([A-Za-z0-9_-]{1,200})$/;
/** Bodies up to this size take the fast path; larger ones (rare, and limited) go through express. */
const MAX_FAST_BODY = 256 * 1024;
const SUCCESS = JSON.stringify({ status: 'success' });

export interface ReceiveRouteDeps {
  channels: ChannelDirectory;
  intake: WebhookIntake;
  bodyLimit: string;
}

async function channelOf(deps: ReceiveRouteDeps, token: string): Promise<InboundChannel> {
  const channel = await deps.channels.find(token);
  if (!channel) throw new AppError('not_found', 'Unknown webhook URL');
  return channel;
}

/** Verifies the signature over the exact bytes and stores the webhook; the answer follows. */
async function receive(
  deps: ReceiveRouteDeps,
  token: string,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<void> {
  const channel = await channelOf(deps, token);
  if (!hasValidSignature(rawBody, signature, channel.app_secret)) {
    throw new AppError('forbidden', 'Invalid signature');
  }
  // Stored before the answer; published after it (the intake publishes, the relay retries).
  await deps.intake.accept(channel, rawBody);
}

/** The provider's door (the published inbound webhook): raw bytes in, because the signature covers exactly them. */
export function receiveRoutes(app: Express, deps: ReceiveRouteDeps): void {
  app.get(RECEIVE_PATH, async (req, res) => {
    const channel = await channelOf(deps, String(req.params.token));
    const mode = req.query['hub.mode'];
    const verifyToken = req.query['hub.verify_token'];
    const challenge = req.query['hub.challenge'];
    if (
      mode !== 'subscribe' ||
      typeof verifyToken !== 'string' ||
      typeof challenge !== 'string' ||
      !secretsMatch(verifyToken, channel.verify_token)
    ) {
      throw new AppError('forbidden', 'Verification failed');
    }
    res.status(200).type('text/plain').send(challenge);
  });

  app.post(
    RECEIVE_PATH,
    express.raw({ type: () => true, limit: deps.bodyLimit }),
    async (req: Request, res) => {
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      await receive(deps, String(req.params.token), rawBody, req.header(PROVIDER_SIGNATURE_HEADER));
      res.status(200).json({ status: 'success' });
    },
  );
}

/** One webhook of a batch, answered as its own request would have been. */
async function receiveOne(
  deps: ReceiveRouteDeps & { logger: Logger },
  item: ReceiveBatchItem,
  limit: number,
): Promise<ReceiveBatchResult> {
  try {
    const rawBody = Buffer.from(item.body, 'base64');
    if (rawBody.length > limit) {
      throw new AppError('payload_too_large', 'Request body is too large');
    }
    await receive(deps, item.token, rawBody, item.signature);
    return { status: 200, body: { status: 'success' } };
  } catch (error) {
    const known = answerableError(error, () => deps.logger);
    return { status: known.httpStatus, body: errorBody(known) };
  }
}

/**
 * The webhooks the gateway received together, in one internal request: each verified and stored
 * as on its own (they meet in the intake's batched insert), each answered with the status and
 * body its own request would have had, in order. The whole request fails only when it is not a
 * batch at all (no internal secret, malformed, too large).
 */
async function receiveBatch(
  deps: ReceiveRouteDeps & { logger: Logger; internalSecret: string },
  req: IncomingMessage,
  res: ServerResponse,
  length: number,
  webhookLimit: number,
): Promise<void> {
  checkInternalSecret(req, deps.internalSecret);
  if (length > RECEIVE_BATCH_MAX_BYTES) {
    throw new AppError('payload_too_large', 'Request body is too large');
  }
  const raw = await readStatedBody(req, length);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('malformed_json', 'Request body is not valid JSON');
  }
  const batch = ReceiveBatchRequestSchema.safeParse(parsed);
  if (!batch.success) throw new AppError('validation_failed', describeZodError(batch.error));
  const results = await Promise.all(
    batch.data.webhooks.map((item) => receiveOne(deps, item, webhookLimit)),
  );
  const answer: ReceiveBatchResponse = { status: 'success', results };
  endJson(res, 200, JSON.stringify(answer));
}

/**
 * The same POST on node:http before express, for a body of stated length within the limit (every
 * status webhook: three for each message sent): express' routing and body parsing were a large
 * part of inbound's work per webhook. Anything else (chunked or compressed bodies, large ones, the
 * verification GET) is left to the express route above.
 */
export function receiveFastPath(
  deps: ReceiveRouteDeps & { logger: Logger; metrics: ServiceMetrics; internalSecret: string },
): PreRoute {
  const fastLimit = Math.min(MAX_FAST_BODY, byteSize(deps.bodyLimit) ?? 0);
  const webhookLimit = byteSize(deps.bodyLimit) ?? 0;
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return false;
    const target = req.url ?? '';
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    if (path === RECEIVE_BATCH_PATH) {
      const length = statedBodyLength(req);
      if (length === undefined) return false;
      answerBeforeExpress(deps, req, res, { route: RECEIVE_BATCH_PATH, path }, () =>
        receiveBatch(deps, req, res, length, webhookLimit),
      );
      return true;
    }
    const token = PLAIN_RECEIVE_PATH.exec(path)?.[1];
    if (token === undefined) return false;
    const length = statedBodyLength(req);
    if (length === undefined || length > fastLimit) return false;
    answerBeforeExpress(deps, req, res, { route: RECEIVE_PATH, path }, async () => {
      const rawBody = await readStatedBody(req, length);
      const signature = req.headers[PROVIDER_SIGNATURE_HEADER];
      await receive(deps, token, rawBody, typeof signature === 'string' ? signature : undefined);
      endJson(res, 200, SUCCESS);
    });
    return true;
  };
}
