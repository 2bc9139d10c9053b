import type { ApiTokenView } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { ApiToken, OrganizationStore } from '../data-access/organization-store';
import { TOKEN_PREFIX } from './api-tokens';
import type { TokenAuthenticator } from './authenticate-token';
import { issueToken } from './manage-organizations';

/** A token as its organization's users see it after creation: never the secret itself. */
export function presentToken(token: ApiToken): ApiTokenView {
  return {
    token_id: token.token_id,
    name: token.name ?? 'API token',
    masked_token: `${TOKEN_PREFIX}****${token.hint ?? ''}`,
    created_at: token.created_at.toISOString(),
    last_used_at: token.last_used_at ? token.last_used_at.toISOString() : null,
  };
}

export async function listTokens(
  store: OrganizationStore,
  company_id: number,
): Promise<ApiTokenView[]> {
  return (await store.listActiveTokens(company_id)).map(presentToken);
}

export async function createNamedToken(
  store: OrganizationStore,
  company_id: number,
  name: string,
  now = new Date(),
): Promise<ApiTokenView & { token: string }> {
  const { token, token_id } = await issueToken(store, company_id, now, name);
  return {
    ...presentToken({
      token_id,
      company_id,
      token_hash: '',
      created_at: now,
      revoked_at: null,
      name,
      hint: token.slice(-4),
      last_used_at: null,
    }),
    token,
  };
}

/**
 * Revokes one of the organization's tokens: this gateway forgets it at once, every other
 * replica within its token cache's lifetime (TOKEN_CACHE_TTL_MS).
 */
export async function revokeOrganizationToken(
  store: OrganizationStore,
  authenticator: TokenAuthenticator,
  company_id: number,
  token_id: string,
  now = new Date(),
): Promise<void> {
  const revoked = await store.revokeToken(token_id, now, company_id);
  if (!revoked) throw new AppError('not_found', `token_id: no token ${token_id}`);
  authenticator.forget(revoked.token_hash);
}
