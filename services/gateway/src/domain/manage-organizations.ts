import type { ChannelSummary, CreateOrganizationRequest } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { Organization, OrganizationStore } from '../data-access/organization-store';
import { generateToken, hashToken } from './api-tokens';

export interface IssuedToken {
  token: string;
  token_id: string;
}

/** Asks messaging for the organization's channel (idempotent on messaging's side). */
export type ProvisionChannel = (organization: Organization) => Promise<ChannelSummary>;

/** Makes the organization's owner; undone with the organization if a later step fails. */
export interface OwnerMaker<T> {
  create(organization: Organization): Promise<T>;
  undo(company_id: number): Promise<void>;
}

/**
 * An organization is usable only with its token and its channel; if either step fails the
 * organization is removed again, so a retry of the admin call starts clean.
 */
export async function createOrganization<T = never>(
  store: OrganizationStore,
  request: CreateOrganizationRequest,
  provisionChannel: ProvisionChannel,
  now = new Date(),
  owner?: OwnerMaker<T>,
): Promise<{ organization: Organization; channel: ChannelSummary; owner?: T } & IssuedToken> {
  const organization = await store.insertOrganization({
    name: request.name,
    plan: request.plan,
    plan_started_at: now,
    created_at: now,
  });
  try {
    const issued = await issueToken(store, organization.company_id, now);
    const made = owner ? await owner.create(organization) : undefined;
    const channel = await provisionChannel(organization);
    return { organization, channel, ...issued, ...(made === undefined ? {} : { owner: made }) };
  } catch (error) {
    await owner?.undo(organization.company_id);
    await store.deleteOrganization(organization.company_id);
    throw error;
  }
}

export async function issueToken(
  store: OrganizationStore,
  company_id: number,
  now = new Date(),
  name = 'API token',
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
    name,
    hint: token.slice(-4),
    last_used_at: null,
  });
  return { token, token_id };
}
