import type { SimulatorContext } from '../../simulator-context';
import type { SentRecord, StatusEntry } from '../../state/records';
import type { StatusStep } from '../faults/fault-rules';
import { webhookError } from '../graph-error';
import { buildStatus } from '../webhooks/build-status';
import { messagesEnvelope, unixSeconds } from '../webhooks/webhook-envelopes';
import type { AsyncFailure } from './validate-media-object';

export const STATUS_STEPS: readonly StatusStep[] = ['sent', 'delivered', 'read'];

export interface StatusPlan {
  steps: StatusStep[];
  failure?: AsyncFailure;
  duplicate: boolean;
  reorder: boolean;
  /** Waited before the first step (a send's injected latency, so no webhook beats the answer). */
  initialDelayMs: number;
}

/**
 * After an accepted send: each step waits its configured delay after the previous one, then its
 * status webhook is posted (and awaited, so that webhooks leave in order). Pricing rides on `sent`
 * and on the first of `delivered`/`read`. With `reorder`, all webhooks go out at the end, newest
 * first; with `duplicate`, each goes out twice.
 */
export async function runStatusSequence(
  ctx: SimulatorContext,
  record: SentRecord,
  plan: StatusPlan,
): Promise<void> {
  const delays = ctx.options.statusDelaysMs;
  const delayFor = (position: number): number => delays[position] ?? delays.at(-1) ?? 0;
  const held: Record<string, unknown>[] = [];
  const emit = async (status: Record<string, unknown>): Promise<void> => {
    if (plan.reorder) held.push(status);
    else await postStatus(ctx, record, status, plan.duplicate ? 2 : 1);
  };

  if (!(await ctx.scheduler.sleep(plan.initialDelayMs))) return;
  let laterPricingGiven = false;
  for (const step of plan.steps) {
    if (!(await ctx.scheduler.sleep(delayFor(STATUS_STEPS.indexOf(step))))) return;
    const pricing = step === 'sent' || !laterPricingGiven;
    if (step !== 'sent' && pricing) laterPricingGiven = true;
    await emit(buildStatus(record, step, stamp(ctx, record, step), { pricing }));
  }
  if (plan.failure) {
    if (!(await ctx.scheduler.sleep(delayFor(plan.steps.length)))) return;
    const errors = [webhookError(plan.failure.code, plan.failure.details)];
    const timestamp = stamp(ctx, record, 'failed', plan.failure.code);
    await emit(buildStatus(record, 'failed', timestamp, { errors }));
  }
  for (const status of held.reverse())
    await postStatus(ctx, record, status, plan.duplicate ? 2 : 1);
}

function stamp(
  ctx: SimulatorContext,
  record: SentRecord,
  status: StatusEntry['status'],
  errorCode?: number,
): string {
  const timestamp = String(unixSeconds(ctx.now()));
  record.statuses.push({
    status,
    timestamp,
    ...(errorCode !== undefined && { error_code: errorCode }),
  });
  return timestamp;
}

/** One status webhook to the channel's current webhook URL (looked up now: it may have moved). */
export async function postStatus(
  ctx: SimulatorContext,
  record: SentRecord,
  status: Record<string, unknown>,
  times = 1,
): Promise<void> {
  const channel = ctx.state.channels.get(record.phone_number_id);
  if (!channel) return;
  const payload = messagesEnvelope(channel, { statuses: [status] });
  for (let copy = 0; copy < times; copy += 1) {
    await ctx.postWebhook({
      target: { url: channel.registration.webhook_url, appSecret: channel.registration.app_secret },
      field: 'messages',
      wabaId: channel.registration.waba_id,
      phoneNumberId: channel.registration.phone_number_id,
      payload,
    });
  }
}

/** For `POST /sim/status`: a status of any kind for an accepted message, posted now. */
export async function injectStatus(
  ctx: SimulatorContext,
  record: SentRecord,
  status: StatusEntry['status'],
  failure?: AsyncFailure,
): Promise<void> {
  const timestamp = stamp(ctx, record, status, failure?.code);
  const errors = failure ? [webhookError(failure.code, failure.details)] : undefined;
  const pricing = status === 'sent' || status === 'delivered';
  await postStatus(
    ctx,
    record,
    buildStatus(record, status, timestamp, { pricing, ...(errors && { errors }) }),
  );
}
