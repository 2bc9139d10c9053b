import type { Router } from 'express';
import {
  CampaignIdRequestSchema,
  CreateCampaignRequestSchema,
  GetCampaignsQuerySchema,
  IDEMPOTENCY_KEY_HEADER,
  SendCampaignRequestSchema,
  type CampaignResponse,
  type CampaignsResponse,
} from '@switchboard/contracts';
import { operationInput, orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import type { CampaignsDeps } from '../../../domain/campaigns/dependencies';
import {
  cancelCampaign,
  createCampaign,
  deleteCampaign,
  findCampaign,
  listCampaigns,
  presentCampaign,
} from '../../../domain/campaigns/manage-campaigns';
import { sendApiCampaign } from '../../../domain/campaigns/send-api-campaign';
import { startCampaign } from '../../../domain/campaigns/start-campaign';

/** The API's campaign operations: the published three, and creating, reading, starting, canceling and deleting. */
export function campaignRoutes(router: Router, deps: CampaignsDeps): void {
  serveOperation(router, 'getCampaigns', async (req, res) => {
    const { company_id } = orgContext(req);
    const query = parseInput(GetCampaignsQuerySchema, operationInput(req));
    const { campaigns, meta } = await listCampaigns(deps, company_id, query);
    res.json({
      status: 'success',
      campaigns: campaigns.map(presentCampaign),
      meta,
    } satisfies CampaignsResponse);
  });

  serveOperation(router, 'createCampaign', async (req, res) => {
    const organization = orgContext(req);
    const request = parseInput(CreateCampaignRequestSchema, operationInput(req));
    const campaign = await createCampaign(deps, organization, request);
    res.status(201).json({
      status: 'success',
      campaign: presentCampaign(campaign),
    } satisfies CampaignResponse);
  });

  serveOperation(router, 'getCampaign', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id } = parseInput(CampaignIdRequestSchema, operationInput(req));
    const campaign = await findCampaign(deps, company_id, id);
    res.json({ status: 'success', campaign: presentCampaign(campaign) } satisfies CampaignResponse);
  });

  serveOperation(router, 'startCampaign', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id } = parseInput(CampaignIdRequestSchema, operationInput(req));
    await findCampaign(deps, company_id, id);
    const campaign = await startCampaign(deps, id);
    res.json({ status: 'success', campaign: presentCampaign(campaign) } satisfies CampaignResponse);
  });

  serveOperation(router, 'cancelCampaign', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id } = parseInput(CampaignIdRequestSchema, operationInput(req));
    const campaign = await cancelCampaign(deps, company_id, id);
    res.json({ status: 'success', campaign: presentCampaign(campaign) } satisfies CampaignResponse);
  });

  serveOperation(router, 'deleteCampaign', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id } = parseInput(CampaignIdRequestSchema, operationInput(req));
    await deleteCampaign(deps, company_id, id);
    res.json({ status: 'success' });
  });

  for (const operation of ['sendcampaigns', 'sendCampaignMessageToPhoneNumber'] as const) {
    serveOperation(router, operation, async (req, res) => {
      const organization = orgContext(req);
      const request = parseInput(SendCampaignRequestSchema, operationInput(req));
      const sent = await sendApiCampaign(
        deps,
        organization,
        request,
        req.header(IDEMPOTENCY_KEY_HEADER),
      );
      res.json({ status: 'success', ...sent });
    });
  }
}
