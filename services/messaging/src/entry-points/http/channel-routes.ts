import type { Router } from 'express';
import {
  ProvisionChannelRequestSchema,
  UpdateChannelRequestSchema,
  type InboundChannelResponse,
  type ProvisionChannelResponse,
  type UpdateChannelResponse,
} from '@switchboard/contracts';
import { AppError, parseInput } from '@switchboard/service-kit';
import { z } from 'zod';
import type { ChannelStore } from '../../data-access/channel-store';
import {
  provisionChannel,
  summarizeChannel,
  updateChannel,
  viewChannel,
  type ChannelDefaults,
  type RegisterChannel,
} from '../../domain/provision-channel';

const CompanyParamSchema = z.object({ company_id: z.coerce.number().int().positive() });
const TokenParamSchema = z.object({ token: z.string().min(1).max(200) });

/** Internal channel API: provisioning and admin updates from the gateway, lookups from inbound. */
export function channelRoutes(
  router: Router,
  deps: {
    store: ChannelStore;
    defaults: ChannelDefaults;
    register: RegisterChannel | undefined;
    /** Told when a channel changed, so that cached copies are dropped. */
    onChanged?: (company_id: number) => void;
  },
): void {
  router.post('/internal/channels', async (req, res) => {
    const request = parseInput(ProvisionChannelRequestSchema, req.body);
    const channel = await provisionChannel(deps.store, request, deps.defaults, deps.register);
    const body: ProvisionChannelResponse = {
      status: 'success',
      channel: summarizeChannel(channel, deps.defaults.publicBaseUrl),
    };
    res.json(body);
  });

  router.put('/internal/channels/:company_id', async (req, res) => {
    const { company_id } = parseInput(CompanyParamSchema, req.params);
    const changes = parseInput(UpdateChannelRequestSchema, req.body ?? {});
    const channel = await updateChannel(deps.store, company_id, changes);
    deps.onChanged?.(company_id);
    const body: UpdateChannelResponse = {
      status: 'success',
      channel: viewChannel(channel, deps.defaults.publicBaseUrl),
    };
    res.json(body);
  });

  router.get('/internal/channels/by-inbound-token/:token', async (req, res) => {
    const { token } = parseInput(TokenParamSchema, req.params);
    const channel = await deps.store.findByInboundToken(token);
    if (!channel) throw new AppError('not_found', 'Unknown channel');
    const body: InboundChannelResponse = {
      status: 'success',
      channel: {
        company_id: channel.company_id,
        app_secret: channel.app_secret,
        verify_token: channel.verify_token,
        phone_number_id: channel.phone_number_id,
        waba_id: channel.waba_id,
      },
    };
    res.json(body);
  });
}
