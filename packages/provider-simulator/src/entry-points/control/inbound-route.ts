import type { Router } from 'express';
import { inferInboundType, InboundInputSchema } from '../../domain/inbound/inbound-input';
import { injectInbound } from '../../domain/inbound/inject-inbound';
import type { SimulatorContext } from '../../simulator-context';
import { baseUrlOf } from '../graph/authorize';
import { requireChannelById } from './channels-routes';
import { ControlError, parseBody, summarizeWebhook } from './control-error';

/**
 * `POST /sim/inbound`: posts an end user's message as a signed webhook, waits for the receiver's
 * answer (including retries), and returns the wamid, the message as posted, and the delivery.
 */
export function addInboundRoute(router: Router, ctx: SimulatorContext): void {
  router.post('/inbound', async (req, res) => {
    const input = parseBody(InboundInputSchema, req.body);
    const channel = requireChannelById(ctx, input.phone_number_id);
    const type = inferInboundType(input);
    if (!type)
      throw new ControlError(422, 'validation_failed', 'type (or a type object) is required');
    const injected = await injectInbound(ctx, channel, input, type, baseUrlOf(ctx, req));
    res.json({
      wamid: injected.wamid,
      message: injected.message,
      webhook: summarizeWebhook(injected.webhook),
    });
  });
}
