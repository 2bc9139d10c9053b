import type { Router } from 'express';
import { describeChannel } from '../../state/channel';
import {
  AccountUpdateSchema,
  NameUpdateSchema,
  postAccountUpdate,
  postNameUpdate,
  postQualityUpdate,
  QualityUpdateSchema,
} from '../../domain/accounts/post-account-events';
import type { SimulatorContext } from '../../simulator-context';
import { requireChannelById } from './channels-routes';
import { ControlError, parseBody, summarizeWebhook } from './control-error';

/** `POST /sim/account-update`, `POST /sim/name-update`, `POST /sim/quality`. */
export function addAccountRoutes(router: Router, ctx: SimulatorContext): void {
  router.post('/account-update', async (req, res) => {
    const input = parseBody(AccountUpdateSchema, req.body);
    const wabaId =
      input.waba_id ?? requireChannelById(ctx, input.phone_number_id!).registration.waba_id;
    if (!ctx.state.wabas.has(wabaId)) {
      throw new ControlError(404, 'unknown_waba', `No WABA ${wabaId}.`);
    }
    const webhooks = await postAccountUpdate(ctx, wabaId, input);
    res.json({ webhooks: webhooks.map(summarizeWebhook) });
  });

  router.post('/name-update', async (req, res) => {
    const input = parseBody(NameUpdateSchema, req.body);
    const channel = requireChannelById(ctx, input.phone_number_id);
    const webhooks = await postNameUpdate(ctx, channel, input);
    res.json({ channel: describeChannel(channel), webhooks: webhooks.map(summarizeWebhook) });
  });

  router.post('/quality', async (req, res) => {
    const input = parseBody(QualityUpdateSchema, req.body);
    const channel = requireChannelById(ctx, input.phone_number_id);
    const webhooks = await postQualityUpdate(ctx, channel, input);
    res.json({ channel: describeChannel(channel), webhooks: webhooks.map(summarizeWebhook) });
  });
}
