import type { NextFunction, Request, Response, Router } from 'express';
import type { MessagingPhoneNumbers } from '../../outbound/messaging-phone-numbers';
import {
  AddPhoneNumberRequestSchema,
  CreateOrganizationRequestSchema,
  UpdateChannelRequestSchema,
  type CreateOrganizationRequest,
  type CreateOrganizationResponse,
  type OrganizationOwner,
  type CreateTokenResponse,
  type RevokeTokenResponse,
} from '@switchboard/contracts';
import { AppError, parseInput, secretsMatch } from '@switchboard/service-kit';
import { z } from 'zod';
import type { OwnerMaker } from '../../domain/manage-organizations';
import type { Organizations } from '../../domain/organizations';
import { presentOrganization } from '../../domain/present-organization';
import type { MessagingChannels } from '../../outbound/messaging-channels';
import type { RateLimits } from './rate-limits';

const CompanyIdParamSchema = z.object({ company_id: z.coerce.number().int().positive() });
const TokenIdParamSchema = z.object({ token_id: z.string().regex(/^tok_[0-9a-f]{24}$/) });

export interface AdminRouteDeps {
  adminToken: string;
  organizations: Organizations;
  channels: MessagingChannels;
  limits: RateLimits;
  phoneNumbers: MessagingPhoneNumbers;
  /** How the owner a creation request names is made (nothing when it names none). */
  ownerFor: (request: CreateOrganizationRequest) => OwnerMaker<OrganizationOwner> | undefined;
}

export function adminRoutes(router: Router, deps: AdminRouteDeps): void {
  const requireAdmin = (req: Request, res: Response, next: NextFunction) => {
    deps.limits.refuseAfterFailures(req, res);
    const given = /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '')?.[1];
    if (!given || !secretsMatch(given, deps.adminToken)) {
      deps.limits.countFailure(req);
      throw new AppError('invalid_token', 'Invalid admin token');
    }
    next();
  };
  router.use('/admin', deps.limits.admin);

  router.post('/admin/organizations', requireAdmin, async (req, res) => {
    const request = parseInput(CreateOrganizationRequestSchema, req.body ?? {});
    const { organization, token, token_id, channel, owner } = await deps.organizations.create(
      request,
      deps.channels.provision,
      new Date(),
      deps.ownerFor(request),
    );
    const body: CreateOrganizationResponse = {
      status: 'success',
      organization: presentOrganization(organization),
      token,
      token_id,
      channel,
      ...(owner ? { owner } : {}),
    };
    res.status(201).json(body);
  });

  router.post('/admin/organizations/:company_id/tokens', requireAdmin, async (req, res) => {
    const { company_id } = parseInput(CompanyIdParamSchema, req.params);
    const issued = await deps.organizations.issueToken(company_id);
    const body: CreateTokenResponse = { status: 'success', ...issued };
    res.status(201).json(body);
  });

  router.put('/admin/organizations/:company_id/channel', requireAdmin, async (req, res) => {
    const { company_id } = parseInput(CompanyIdParamSchema, req.params);
    const changes = parseInput(UpdateChannelRequestSchema, req.body ?? {});
    if (!(await deps.organizations.find(company_id))) {
      throw new AppError('not_found', `Organization ${company_id} not found`);
    }
    res.json(await deps.channels.update(company_id, changes));
  });

  // No organization look-up here: messaging knows no number of an organization that does not
  // exist (its first number is made with it) and answers 404.
  router.post('/admin/organizations/:company_id/phone-numbers', requireAdmin, async (req, res) => {
    const { company_id } = parseInput(CompanyIdParamSchema, req.params);
    const request = parseInput(AddPhoneNumberRequestSchema, req.body ?? {});
    res.status(201).json(await deps.phoneNumbers.add(company_id, request));
  });

  router.get('/admin/organizations/:company_id/phone-numbers', requireAdmin, async (req, res) => {
    const { company_id } = parseInput(CompanyIdParamSchema, req.params);
    res.json(await deps.phoneNumbers.list(company_id));
  });

  router.delete('/admin/tokens/:token_id', requireAdmin, async (req, res) => {
    const { token_id } = parseInput(TokenIdParamSchema, req.params);
    if (!(await deps.organizations.revokeAnyToken(token_id))) {
      throw new AppError('not_found', `Token ${token_id} not found`);
    }
    const body: RevokeTokenResponse = { status: 'success', token_id, revoked: true };
    res.json(body);
  });
}
