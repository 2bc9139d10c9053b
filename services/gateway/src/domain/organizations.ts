import type { CreateOrganizationRequest } from '@switchboard/contracts';
import type { Organization, OrganizationStore } from '../data-access/organization-store';
import type { TokenAuthenticator } from './authenticate-token';
import {
  createOrganization,
  issueToken,
  type OwnerMaker,
  type ProvisionChannel,
} from './manage-organizations';
import { createNamedToken, listTokens, revokeOrganizationToken } from './organization-tokens';

export type { Organization };

/**
 * Organizations and their API tokens as the routes use them (the administrator's, the
 * organization's own and the internal API): every read and change goes through here.
 */
export function createOrganizations(deps: {
  store: OrganizationStore;
  authenticator: TokenAuthenticator;
}) {
  const { store, authenticator } = deps;
  return {
    create: <T = never>(
      request: CreateOrganizationRequest,
      provisionChannel: ProvisionChannel,
      now = new Date(),
      owner?: OwnerMaker<T>,
    ) => createOrganization(store, request, provisionChannel, now, owner),

    find: (company_id: number): Promise<Organization | null> => store.findOrganization(company_id),

    issueToken: (company_id: number) => issueToken(store, company_id),

    /** Revokes any organization's token (the administrator's call); false if there is none. */
    async revokeAnyToken(token_id: string, now = new Date()): Promise<boolean> {
      const revoked = await store.revokeToken(token_id, now);
      if (!revoked) return false;
      authenticator.forget(revoked.token_hash);
      return true;
    },

    /** One organization's own tokens: listed, made with a name, revoked. */
    tokens: {
      list: (company_id: number) => listTokens(store, company_id),
      create: (company_id: number, name: string) => createNamedToken(store, company_id, name),
      revoke: (company_id: number, token_id: string) =>
        revokeOrganizationToken(store, authenticator, company_id, token_id),
    },
  };
}

export type Organizations = ReturnType<typeof createOrganizations>;
