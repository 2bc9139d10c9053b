import type { CreateOrganizationRequest } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { Organization, OrganizationStore } from '../data-access/organization-store';
import { generateToken, hashToken } from './api-tokens';

export interface IssuedToken {
  token: string;
  token_id: string;
}

export async function createOrganization(
  store: OrganizationStore,
  request: CreateOrganizationRequest,
  now = new Date(),
): Promise<{ organization: Organization } & IssuedToken> {
  const organization = await store.insertOrganization({
    name: request.name,
    plan: request.plan,
    plan_started_at: now,
    created_at: now,
  });
  const issued = await issueToken(store, organization.company_id, now);
  return { organization, ...issued };
}

export async function issueToken(
  store: OrganizationStore,
  company_id: number,
  now = new Date(),
): Promise<IssuedToken> {
  const organization = await store.findOrganization(company_id);
  if (!organization) throw new AppError('not_found', `Organization ${company_id} not found`);
  const { token, token_id } = generateToken();
  await store.insertToken({
    token_id,
    company_id,
    token_hash: hashToken(token),
    created_at: now,
    revoked_at: null,
  });
  return { token, token_id };
}
