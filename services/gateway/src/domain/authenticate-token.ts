import { createTtlCache } from '@switchboard/service-kit';
import type { ApiToken, Organization, OrganizationStore } from '../data-access/organization-store';
import { hashToken, hashesMatch } from './api-tokens';

export type { Organization };

/** A token's organization, and the token's hash (a key for per-token limits that holds no secret). */
export interface AuthenticatedToken {
  organization: Organization;
  tokenHash: string;
}

const MAX_CACHED_TOKENS = 10_000;
/** `last_used_at` moves at most this often: it is a hint for its owners, not a request log. */
const LAST_USED_PRECISION_MS = 60_000;

/** Records a use seen on a database read (a cache hit is within the TTL of one); never awaited. */
function noteUse(store: OrganizationStore, token: ApiToken, now: number): void {
  if (token.last_used_at && now - token.last_used_at.getTime() < LAST_USED_PRECISION_MS) return;
  store.touchToken(token.token_id, new Date(now)).catch(() => undefined);
}

/**
 * Resolves an API token to its organization. Verified tokens are cached briefly so that a busy
 * client costs one database read per TTL; revoking through this gateway evicts at once, and other
 * replicas stop accepting the token within the TTL.
 */
export function createTokenAuthenticator(store: OrganizationStore, ttlMs: number) {
  const cache = createTtlCache<string, Organization>({ ttlMs, maxEntries: MAX_CACHED_TOKENS });

  return {
    async authenticate(
      token: string | undefined,
      now = Date.now(),
    ): Promise<AuthenticatedToken | null> {
      if (!token || token.length > 200) return null;
      const hash = hashToken(token);
      const cached = cache.get(hash, now);
      if (cached) return { organization: cached, tokenHash: hash };

      const stored = await store.findActiveTokenByHash(hash);
      if (!stored || !hashesMatch(stored.token_hash, hash)) return null;
      const organization = await store.findOrganization(stored.company_id);
      if (!organization) return null;
      noteUse(store, stored, now);

      cache.set(hash, organization, now);
      return { organization, tokenHash: hash };
    },

    forget(tokenHash: string): void {
      cache.delete(tokenHash);
    },
  };
}

export type TokenAuthenticator = ReturnType<typeof createTokenAuthenticator>;
