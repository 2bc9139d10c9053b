import type { Router } from 'express';
import type { OrganizationResponse } from '@switchboard/contracts';
import { AppError, parseInput, requireInternalSecret } from '@switchboard/service-kit';
import { z } from 'zod';
import type { OrganizationStore } from '../../data-access/organization-store';
import { presentOrganization } from './present-organization';

const CompanyIdParamSchema = z.object({ company_id: z.coerce.number().int().positive() });

/**
 * The gateway's internal API (ARCHITECTURE §1): the gateway faces the public, so these routes
 * carry the internal-secret guard themselves. Campaigns asks for an organization's plan here,
 * since `message_received` carries only its id.
 */
export function internalRoutes(
  router: Router,
  deps: { store: OrganizationStore; internalSecret: string },
): void {
  router.get(
    '/internal/organizations/:company_id',
    requireInternalSecret(deps.internalSecret),
    async (req, res) => {
      const { company_id } = parseInput(CompanyIdParamSchema, req.params);
      const organization = await deps.store.findOrganization(company_id);
      if (!organization)
        throw new AppError('not_found', `company_id: no organization ${company_id}`);
      res.json({
        status: 'success',
        organization: presentOrganization(organization),
      } satisfies OrganizationResponse);
    },
  );
}
