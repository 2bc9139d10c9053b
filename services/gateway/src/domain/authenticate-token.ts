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
  // One database lookup per token at a time: when a busy token's entry expires, the requests in
  // flight would otherwise each read it again (two commands apiece).
  const lookups = new Map<string, Promise<Organization | null>>();

  async function lookUp(hash: string, now: number): Promise<Organization | null> {
    const stored = await store.findActiveTokenByHash(hash);
    if (!stored || !hashesMatch(stored.token_hash, hash)) return null;
    const organization = await store.findOrganization(stored.company_id);
    if (!organization) return null;
    noteUse(store, stored, now);
    return organization;
  }

  return {
    async authenticate(
      token: string | undefined,
      now = Date.now(),
    ): Promise<AuthenticatedToken | null> {
      if (!token || token.length > 200) return null;
      const hash = hashToken(token);
      const cached = cache.get(hash, now);
      if (cached) return { organization: cached, tokenHash: hash };

      let lookup = lookups.get(hash);
      if (!lookup) {
        const started = lookUp(hash, now).then((organization) => {
          // Cached only if the token was not revoked (forgotten) while it was read.
          if (organization && lookups.get(hash) === started) cache.set(hash, organization, now);
          return organization;
        });
        lookup = started;
        lookups.set(hash, started);
        void started
          .finally(() => {
            if (lookups.get(hash) === started) lookups.delete(hash);
          })
          .catch(() => undefined);
      }
      const organization = await lookup;
      return organization ? { organization, tokenHash: hash } : null;
    },

    forget(tokenHash: string): void {
      lookups.delete(tokenHash);
      cache.delete(tokenHash);
    },
  };
}

export type TokenAuthenticator = ReturnType<typeof createTokenAuthenticator>;
