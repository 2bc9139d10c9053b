import type { Organization as OrganizationView } from '@switchboard/contracts';
import type { Organization } from '../data-access/organization-store';

export function presentOrganization(organization: Organization): OrganizationView {
  return {
    company_id: organization.company_id,
    name: organization.name,
    plan: organization.plan,
    plan_started_at: organization.plan_started_at.toISOString(),
  };
}
