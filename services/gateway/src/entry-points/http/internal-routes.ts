import type { Router } from 'express';
import type { OrganizationResponse } from '@switchboard/contracts';
import { AppError, parseInput, requireInternalSecret } from '@switchboard/service-kit';
import { z } from 'zod';
import type { Organizations } from '../../domain/organizations';
import { presentOrganization } from '../../domain/present-organization';

const CompanyIdParamSchema = z.object({ company_id: z.coerce.number().int().positive() });

/**
 * The gateway's internal API (ARCHITECTURE §1): the gateway faces the public, so these routes
 * carry the internal-secret guard themselves. Campaigns asks for an organization's plan here,
 * since `message_received` carries only its id.
 */
export function internalRoutes(
  router: Router,
  deps: { organizations: Organizations; internalSecret: string },
): void {
  router.get(
    '/internal/organizations/:company_id',
    requireInternalSecret(deps.internalSecret),
    async (req, res) => {
      const { company_id } = parseInput(CompanyIdParamSchema, req.params);
      const organization = await deps.organizations.find(company_id);
      if (!organization)
        throw new AppError('not_found', `company_id: no organization ${company_id}`);
      res.json({
        status: 'success',
        organization: presentOrganization(organization),
      } satisfies OrganizationResponse);
    },
  );
}
