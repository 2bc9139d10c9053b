import type { SimulatorContext } from '../../simulator-context';
import type { Channel } from '../../state/channel';
import type { SentRecord } from '../../state/records';
import { rememberBounded } from '../../state/remember-bounded';
import { pairKey } from '../../state/simulator-state';
import type { FaultRule } from '../faults/fault-rules';
import { matchesSend, takeMatchingRule } from '../faults/fault-rules';
import { TokenBucket } from '../faults/token-bucket';
import { GraphError } from '../graph-error';
import { mintWamid } from '../mint-ids';
import { runStatusSequence, STATUS_STEPS } from './run-status-sequence';
import type { AsyncFailure } from './validate-media-object';
import type { KnownMessage } from './known-message';
import type { ValidatedMessage } from './validate-send-request';
import { validateSendRequest } from './validate-send-request';

export type SendOutcome =
  | { kind: 'json'; status: number; body: unknown; latencyMs: number }
  | { kind: 'text'; status: number; text: string; latencyMs: number }
  | { kind: 'drop'; latencyMs: number };

const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * `POST /{phone_number_id}/messages`: validate, apply a matching fault rule, enforce the
 * throughput and pair limits, then accept (mint a wamid, record it, start the status webhooks).
 * Every call, accepted or not, is recorded for `GET /sim/sent`.
 */
export function acceptSend(
  ctx: SimulatorContext,
  channel: Channel,
  request: { body: unknown; rawBody: string },
): SendOutcome {
  const record: SentRecord = {
    seq: ctx.state.nextSequence(),
    received_at: new Date(ctx.now()).toISOString(),
    phone_number_id: channel.registration.phone_number_id,
    kind: 'message',
    request: request.body,
    raw_body: request.rawBody,
    accepted: false,
    response_status: 0,
    response_body: undefined,
    statuses: [],
    ...describeRecipient(request.body),
  };
  if (isJsonObjectWithStatus(request.body)) record.kind = 'mark_read';
  rememberBounded(ctx.state.sent, record);
  let rule: FaultRule | undefined;
  try {
    const validated = validateSendRequest(request.body, {
      findTemplates: (name) =>
        [...ctx.state.templates.values()].filter(
          (t) => t.waba_id === channel.registration.waba_id && t.name === name,
        ),
      findMedia: (id) => ctx.state.media.get(id),
      findMessage: (wamid) => knownMessage(ctx, wamid),
      phoneNumberId: channel.registration.phone_number_id,
    });
    if (validated.kind === 'mark_read') {
      record.read_receipt = { message_id: validated.messageId, typing: validated.typing ?? false };
      // Rules naming no recipient (or the type `mark_read`) fail read receipts as well.
      rule = takeMatchingRule(ctx.state.faults, (candidate) =>
        matchesSend(candidate, {
          phone_number_id: record.phone_number_id,
          wa_id: '',
          type: 'mark_read',
        }),
      );
      const latencyMs = rule?.latency_ms ?? 0;
      return (
        injectedFailure(rule, record, latencyMs) ??
        answer(record, 200, { success: true }, latencyMs)
      );
    }
    Object.assign(record, { to: validated.to, wa_id: validated.waId, type: validated.type });
    rule = takeMatchingRule(ctx.state.faults, (candidate) =>
      matchesSend(candidate, {
        phone_number_id: record.phone_number_id,
        wa_id: validated.waId,
        type: validated.type,
      }),
    );
    const latencyMs = rule?.latency_ms ?? 0;
    const injected = injectedFailure(rule, record, latencyMs);
    if (injected) return injected;
    checkLimits(ctx, channel, validated);
    return accept(ctx, channel, record, validated, rule, latencyMs);
  } catch (error) {
    if (!(error instanceof GraphError)) throw error;
    return answer(record, error.httpStatus, error.toBody(), rule?.latency_ms ?? 0);
  }
}

const isJsonObjectWithStatus = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && 'status' in body;

/** A message of a conversation the simulator knows: one a user sent, or one it accepted. */
function knownMessage(ctx: SimulatorContext, wamid: string): KnownMessage | undefined {
  const inbound = ctx.state.inbound.get(wamid);
  if (inbound) return { direction: 'inbound', ...inbound };
  const sent = ctx.state.findSentByWamid(wamid);
  if (!sent?.wa_id) return undefined;
  return {
    direction: 'outbound',
    phone_number_id: sent.phone_number_id,
    wa_id: sent.wa_id,
    ...(sent.type !== undefined && { type: sent.type }),
  };
}

/** What a send claims before validation, so rejected sends can be found by recipient too. */
function describeRecipient(body: unknown): Partial<SentRecord> {
  const { to, type } = (body ?? {}) as { to?: unknown; type?: unknown };
  return {
    ...(typeof to === 'string' && { to, wa_id: to.replace(/\D/g, '') }),
    ...(typeof type === 'string' && { type }),
  };
}

function answer(record: SentRecord, status: number, body: unknown, latencyMs: number): SendOutcome {
  record.response_status = status;
  record.response_body = body;
  return { kind: 'json', status, body, latencyMs };
}

/** A fault rule's synchronous effect: a Graph error, a bare HTTP status, a raw body, a dropped connection. */
function injectedFailure(
  rule: FaultRule | undefined,
  record: SentRecord,
  latencyMs: number,
): SendOutcome | undefined {
  if (!rule) return undefined;
  if (rule.drop_connection) {
    record.response_body = 'connection dropped';
    return { kind: 'drop', latencyMs };
  }
  if (rule.http_status !== undefined && rule.body !== undefined) {
    record.response_status = rule.http_status;
    record.response_body = rule.body;
    return { kind: 'text', status: rule.http_status, text: rule.body, latencyMs };
  }
  if (rule.error_code === undefined && rule.http_status === undefined) return undefined;
  const code = rule.error_code ?? defaultCodeForStatus(rule.http_status!);
  const error = new GraphError(code, {
    ...(rule.http_status !== undefined && { httpStatus: rule.http_status }),
    ...(rule.error_details !== undefined && { details: rule.error_details }),
  });
  return answer(record, error.httpStatus, error.toBody(), latencyMs);
}

/** The Graph error Meta puts behind a bare status: 503 → 2, 500 → 131000, 429 → 130429, else 1. */
function defaultCodeForStatus(status: number): number {
  if (status === 503) return 2;
  if (status === 500) return 131000;
  if (status === 429) return 130429;
  if (status === 401) return 190;
  return 1;
}

function checkLimits(ctx: SimulatorContext, channel: Channel, message: ValidatedMessage): void {
  const phoneNumberId = channel.registration.phone_number_id;
  if (message.waId === channel.business_wa_id) throw new GraphError(131021);
  const bucket = throughputBucket(ctx, channel);
  if (bucket && !bucket.tryTake(ctx.now())) throw new GraphError(130429);
  if (ctx.options.pairRateLimit) {
    const key = pairKey(phoneNumberId, message.waId);
    let pair = ctx.state.pairBuckets.get(key);
    if (!pair) {
      pair = new TokenBucket(45, 1 / 6, ctx.now());
      ctx.state.pairBuckets.set(key, pair);
    }
    if (!pair.tryTake(ctx.now())) throw new GraphError(131056);
  }
}

/**
 * The limit in force for a phone number: the newest throughput fault for it (or for every
 * number), else the channel's own, else the simulator's default; 0 means no limit.
 */
export function throughputLimit(ctx: SimulatorContext, channel: Channel): number {
  const phoneNumberId = channel.registration.phone_number_id;
  const rules = ctx.state.faults.filter(
    (rule) =>
      rule.kind === 'throughput' &&
      (rule.phone_number_id === undefined || rule.phone_number_id === phoneNumberId),
  );
  return (
    rules.at(-1)?.throughput_per_second ??
    channel.registration.throughput_per_second ??
    ctx.options.throughputPerSecond
  );
}

function throughputBucket(ctx: SimulatorContext, channel: Channel): TokenBucket | undefined {
  const limit = throughputLimit(ctx, channel);
  if (limit <= 0) return undefined;
  const id = channel.registration.phone_number_id;
  let bucket = ctx.state.throughputBuckets.get(id);
  if (!bucket || bucket.perSecond !== limit) {
    bucket = new TokenBucket(Math.max(1, limit), limit, ctx.now());
    ctx.state.throughputBuckets.set(id, bucket);
  }
  return bucket;
}

function accept(
  ctx: SimulatorContext,
  channel: Channel,
  record: SentRecord,
  message: ValidatedMessage,
  rule: FaultRule | undefined,
  latencyMs: number,
): SendOutcome {
  const wamid = mintWamid(message.waId);
  record.accepted = true;
  record.wamid = wamid;
  if (message.template) {
    const { name, language, category } = message.template;
    record.template = { name, language, category };
  }
  const phoneNumberId = channel.registration.phone_number_id;
  ctx.state.lastOutgoingWamid.set(pairKey(phoneNumberId, message.waId), wamid);

  const failure: AsyncFailure | undefined =
    (rule?.async_error_code !== undefined
      ? {
          code: rule.async_error_code,
          ...(rule.async_error_details !== undefined && { details: rule.async_error_details }),
        }
      : undefined) ??
    outsideServiceWindow(ctx, phoneNumberId, message) ??
    message.asyncFailure;
  // Meta posts only `sent` for a reaction: never delivered or read.
  const normalSteps = message.type === 'reaction' ? STATUS_STEPS.slice(0, 1) : STATUS_STEPS;
  const steps =
    rule?.statuses ?? (failure ? [] : normalSteps.slice(0, ctx.options.statusDelaysMs.length));
  ctx.scheduler.run(
    () =>
      runStatusSequence(ctx, record, {
        steps: [...steps],
        ...(failure && { failure }),
        duplicate: rule?.duplicate_statuses ?? ctx.options.duplicateStatuses,
        reorder: rule?.reorder_statuses ?? ctx.options.reorderStatuses,
        initialDelayMs: latencyMs,
      }),
    (error) => ctx.log.error('status webhooks failed', { error: String(error) }),
  );
  const body = {
    messaging_product: 'whatsapp',
    contacts: [{ input: message.to, wa_id: message.waId }],
    messages: [{ id: wamid, ...(message.template && { message_status: 'accepted' }) }],
  };
  return answer(record, 200, body, latencyMs);
}

function outsideServiceWindow(
  ctx: SimulatorContext,
  phoneNumberId: string,
  message: ValidatedMessage,
): AsyncFailure | undefined {
  if (!ctx.options.enforceServiceWindow || message.type === 'template') return undefined;
  const lastInbound = ctx.state.lastInboundAt.get(pairKey(phoneNumberId, message.waId));
  if (lastInbound !== undefined && ctx.now() - lastInbound < SERVICE_WINDOW_MS) return undefined;
  return { code: 131047 };
}
