import type { Router } from 'express';
import {
  ProvisionChannelRequestSchema,
  UpdateChannelRequestSchema,
  type InboundChannelResponse,
  type ProvisionChannelResponse,
  type UpdateChannelResponse,
} from '@switchboard/contracts';
import { parseInput } from '@switchboard/service-kit';
import { z } from 'zod';
import type { Channels } from '../../domain/provision-channel';

const CompanyParamSchema = z.object({ company_id: z.coerce.number().int().positive() });
const TokenParamSchema = z.object({ token: z.string().min(1).max(200) });

/** Internal channel API: provisioning and admin updates from the gateway, lookups from inbound. */
export function channelRoutes(router: Router, deps: { channels: Channels }): void {
  router.post('/internal/channels', async (req, res) => {
    const request = parseInput(ProvisionChannelRequestSchema, req.body);
    const body: ProvisionChannelResponse = {
      status: 'success',
      channel: await deps.channels.provision(request),
    };
    res.json(body);
  });

  router.put('/internal/channels/:company_id', async (req, res) => {
    const { company_id } = parseInput(CompanyParamSchema, req.params);
    const changes = parseInput(UpdateChannelRequestSchema, req.body ?? {});
    const body: UpdateChannelResponse = {
      status: 'success',
      channel: await deps.channels.update(company_id, changes),
    };
    res.json(body);
  });

  router.get('/internal/channels/by-inbound-token/:token', async (req, res) => {
    const { token } = parseInput(TokenParamSchema, req.params);
    const body: InboundChannelResponse = {
      status: 'success',
      channel: await deps.channels.inboundChannel(token),
    };
    res.json(body);
  });
}
