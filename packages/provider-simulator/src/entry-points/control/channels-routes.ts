import type { Router } from 'express';
import { registerChannel } from '../../domain/accounts/register-channel';
import type { SimulatorContext } from '../../simulator-context';
import { ChannelRegistrationSchema, describeChannel } from '../../state/channel';
import { ControlError, parseBody } from './control-error';

/** `POST /sim/channels` (upsert), `GET /sim/channels`, `DELETE /sim/channels/{phone_number_id}`. */
export function addChannelRoutes(router: Router, ctx: SimulatorContext): void {
  router.post('/channels', async (req, res) => {
    const registration = parseBody(ChannelRegistrationSchema, req.body);
    const outcome = await registerChannel(ctx, registration);
    if (!outcome.ok) {
      throw new ControlError(
        outcome.reason === 'id_conflict' ? 409 : 400,
        outcome.reason,
        outcome.message,
      );
    }
    res.status(outcome.created ? 201 : 200).json({
      channel: describeChannel(outcome.channel),
      created: outcome.created,
      ...(outcome.verification && { verification: outcome.verification }),
    });
  });

  router.get('/channels', (_req, res) => {
    res.json({ channels: [...ctx.state.channels.values()].map(describeChannel) });
  });

  router.delete('/channels/:phoneNumberId', (req, res) => {
    if (!ctx.state.channels.delete(req.params.phoneNumberId)) {
      throw new ControlError(404, 'not_found', 'No channel with this phone_number_id.');
    }
    res.status(204).end();
  });
}

export function requireChannelById(ctx: SimulatorContext, phoneNumberId: string) {
  const channel = ctx.state.channels.get(phoneNumberId);
  if (!channel) {
    throw new ControlError(
      404,
      'unknown_channel',
      `No channel with phone_number_id ${phoneNumberId}.`,
    );
  }
  return channel;
}
