import type { Router } from 'express';
import {
  AddPhoneNumberRequestSchema,
  ProvisionChannelRequestSchema,
  type AddPhoneNumberResponse,
  type ListPhoneNumbersResponse,
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

  router.post('/internal/channels/:company_id/numbers', async (req, res) => {
    const { company_id } = parseInput(CompanyParamSchema, req.params);
    const request = parseInput(AddPhoneNumberRequestSchema, req.body ?? {});
    const body: AddPhoneNumberResponse = {
      status: 'success',
      phone_number: await deps.channels.addNumber(company_id, request),
    };
    res.status(201).json(body);
  });

  router.get('/internal/channels/:company_id/numbers', async (req, res) => {
    const { company_id } = parseInput(CompanyParamSchema, req.params);
    const body: ListPhoneNumbersResponse = {
      status: 'success',
      phone_numbers: await deps.channels.listNumbers(company_id),
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
