import {
  InternalUsageResponseSchema,
  USAGE_OWNERS,
  usageInternalPath,
  type CountedElsewhere,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { ServiceProxy } from './service-proxy';

/**
 * A usage figure is worth little late: the page shows the others and says which one is missing
 * rather than wait the proxy's full timeout (meant for sends) on one slow service.
 */
export const USAGE_TIMEOUT_MS = 3000;

/** The counters messaging, campaigns and contacts keep, read on their internal usage route. */
export function usageCounters(proxy: ServiceProxy, timeoutMs: number) {
  return async (quota: CountedElsewhere, company_id: number, month: string): Promise<number> => {
    const service = USAGE_OWNERS[quota];
    const { status, data } = await proxy.call(service, {
      method: 'GET',
      url: `${usageInternalPath(company_id)}?month=${encodeURIComponent(month)}`,
      timeoutMs,
    });
    if (status !== 200) {
      throw new AppError('dependency_unavailable', `${service} answered ${status}`);
    }
    return InternalUsageResponseSchema.parse(data).used;
  };
}
