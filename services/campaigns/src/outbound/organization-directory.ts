import {
  GATEWAY_INTERNAL_PATHS,
  OrganizationResponseSchema,
  type OrgContext,
} from '@switchboard/contracts';
import { createInternalClient, createTtlCache, type Logger } from '@switchboard/service-kit';

/**
 * An organization's plan, from the gateway: `message_received` carries only the
 * organization's id, and campaigns owns no organizations. Remembered for `cacheMs`, so a plan
 * change reaches automated answers within that time.
 */
export function createOrganizationDirectory(options: {
  gatewayUrl: string;
  internalSecret: string;
  logger: Logger;
  cacheMs: number;
}) {
  const gateway = createInternalClient({
    service: 'gateway',
    baseURL: options.gatewayUrl,
    internalSecret: options.internalSecret,
    logger: options.logger,
  });
  const cache = createTtlCache<number, OrgContext>({ ttlMs: options.cacheMs, maxEntries: 10_000 });

  return {
    /** The organization, or null when the gateway knows none with this id. */
    async find(company_id: number): Promise<OrgContext | null> {
      const cached = cache.get(company_id);
      if (cached) return cached;
      const answer = await gateway.get(GATEWAY_INTERNAL_PATHS.organization(company_id));
      if (answer.status === 404) return null;
      if (answer.status !== 200) throw gateway.refusal(answer);
      const { organization } = OrganizationResponseSchema.parse(answer.data);
      const context: OrgContext = {
        company_id,
        plan: organization.plan,
        plan_started_at: new Date(organization.plan_started_at),
      };
      cache.set(company_id, context);
      return context;
    },

    shutdown: () => gateway.shutdown(),
  };
}

export type OrganizationDirectory = ReturnType<typeof createOrganizationDirectory>;
