import type { Router } from 'express';
import { z } from 'zod';
import { injectStatus } from '../../domain/messages/run-status-sequence';
import type { SimulatorContext } from '../../simulator-context';
import { ControlError, parseBody } from './control-error';

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;
const digits = (value: string): string => value.replace(/\D/g, '');

const StatusInjectionSchema = z.object({
  wamid: z.string().startsWith('wamid.'),
  status: z.enum(['sent', 'delivered', 'read', 'failed']),
  error_code: z.number().int().nonnegative().optional(),
  error_details: z.string().optional(),
});

export interface ResetHandler {
  (options: { dropRegisteredChannels: boolean }): void;
}

/** `GET /sim/sent`, `GET /sim/webhooks`, `POST /sim/status`, `POST /sim/reset`. */
export function addInspectionRoutes(
  router: Router,
  ctx: SimulatorContext,
  reset: ResetHandler,
): void {
  /**
   * Sends in arrival order; accepted ones only unless `include_rejected=true`; with `count=true`
   * only how many (`{count}`), for a benchmark polling a long run without copying it each time.
   */
  router.get('/sent', (req, res) => {
    const phoneNumberId = text(req.query.phone_number_id);
    const to = text(req.query.to);
    const wamid = text(req.query.wamid);
    const includeRejected = req.query.include_rejected === 'true';
    const sent = ctx.state.sent.filter(
      (record) =>
        (includeRejected || record.accepted) &&
        (phoneNumberId === undefined || record.phone_number_id === phoneNumberId) &&
        (to === undefined || (record.wa_id !== undefined && record.wa_id === digits(to))) &&
        (wamid === undefined || record.wamid === wamid),
    );
    if (req.query.count === 'true') res.json({ count: sent.length });
    else res.json({ sent });
  });

  /**
   * Read receipts (`status: read`, with or without typing) in arrival order; accepted ones only
   * unless `include_rejected=true`.
   */
  router.get('/read-receipts', (req, res) => {
    const phoneNumberId = text(req.query.phone_number_id);
    const messageId = text(req.query.message_id);
    const includeRejected = req.query.include_rejected === 'true';
    const receipts = ctx.state.sent.filter(
      (record) =>
        record.kind === 'mark_read' &&
        (includeRejected || record.response_status === 200) &&
        (phoneNumberId === undefined || record.phone_number_id === phoneNumberId) &&
        (messageId === undefined || record.read_receipt?.message_id === messageId),
    );
    res.json({ read_receipts: receipts });
  });

  /** Webhooks posted, oldest first, with every attempt and the receiver's answers. */
  router.get('/webhooks', (req, res) => {
    const filters = {
      phone_number_id: text(req.query.phone_number_id),
      waba_id: text(req.query.waba_id),
      field: text(req.query.field),
      state: text(req.query.state),
    };
    const webhooks = ctx.state.webhooks.filter((record) =>
      Object.entries(filters).every(
        ([key, wanted]) => wanted === undefined || record[key as keyof typeof filters] === wanted,
      ),
    );
    res.json({ webhooks });
  });

  /** A status webhook of any kind for an accepted message, now (late, repeated, failed after read …). */
  router.post('/status', async (req, res) => {
    const input = parseBody(StatusInjectionSchema, req.body);
    const record = ctx.state.findSentByWamid(input.wamid);
    if (!record)
      throw new ControlError(404, 'unknown_message', 'No accepted message with this wamid.');
    const failure =
      input.status === 'failed'
        ? {
            code: input.error_code ?? 131026,
            ...(input.error_details !== undefined && { details: input.error_details }),
          }
        : undefined;
    await injectStatus(ctx, record, input.status, failure);
    res.json({ message: record });
  });

  /** Forgets sends, webhooks, faults, templates and media; `?channels=true` drops registered channels. */
  router.post('/reset', (req, res) => {
    reset({ dropRegisteredChannels: req.query.channels === 'true' });
    res.json({ status: 'reset' });
  });
}
