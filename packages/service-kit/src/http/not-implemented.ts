import { API_OPERATION_OWNERS, type ServiceName } from '@switchboard/contracts';
import type { Router } from 'express';
import { AppError } from '../errors';
import { orgContext } from './internal-auth';

/** Placeholders for operations a service owns but does not serve yet: a clear 501, never a crash. */
export function notImplementedRoutes(router: Router, paths: readonly string[]): void {
  for (const path of paths) {
    router.all(path, (req) => {
      const organization = orgContext(req);
      throw new AppError('not_implemented', `${path} is not implemented yet`, {
        details: { company_id: organization.company_id },
      });
    });
  }
}

/** The `/api/svc/*` paths the gateway routes to `service` (ARCHITECTURE §2). */
export function apiPathsOwnedBy(service: ServiceName): string[] {
  return Object.entries(API_OPERATION_OWNERS)
    .filter(([, owner]) => owner === service)
    .map(([operation]) => `/api/svc/${operation}`);
}
