import type { RequestHandler } from 'express';
import { acceptSend } from '../../domain/messages/accept-send';
import type { SimulatorContext } from '../../simulator-context';
import { requireChannel } from './authorize';

/** `POST /{phone_number_id}/messages`. */
export function sendMessageRoute(ctx: SimulatorContext): RequestHandler {
  return async (req, res) => {
    const channel = requireChannel(ctx, res.locals.token, String(req.params.phoneNumberId), 'post');
    const outcome = acceptSend(ctx, channel, {
      body: req.body ?? {},
      rawBody: (req as { rawBody?: string }).rawBody ?? '',
    });
    if (outcome.latencyMs > 0) await ctx.scheduler.sleep(outcome.latencyMs);
    if (outcome.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (outcome.kind === 'text') {
      res.status(outcome.status).type('text/html').send(outcome.text);
      return;
    }
    res.status(outcome.status).json(outcome.body);
  };
}
