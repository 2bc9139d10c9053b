import type { z } from 'zod';
import type { ServiceName } from '../service-names';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/**
 * `token`: the organization's API token (the published API authentication); `session`: a signed-in user's session
 * cookie (writes also carry the CSRF header); `token_or_session`: either; `admin`: the
 * operator's bearer token.
 */
export type OperationAuth = 'token' | 'session' | 'token_or_session' | 'admin' | 'none';

/**
 * One HTTP operation, described once: for validation, for the OpenAPI document, for the gateway's
 * routing and for the service that serves it (see `operations.ts`). An operation that accepts a
 * second method (`updateContact` by POST or PUT) is a second definition of the same path, so the
 * document describes each method; the route accepts every method its path is defined with.
 */
export interface Operation {
  /**
   * The service that answers it. The gateway forwards an `/api/svc/<name>` operation to its owner,
   * and the owner must serve it (`serveOperation`), or it refuses to start.
   */
  owner: ServiceName;
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/admin/organizations/{company_id}/tokens`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  auth: OperationAuth;
  request?: {
    /** Path parameters; without it each `{name}` of the path is documented as a string. */
    params?: z.ZodObject;
    query?: z.ZodObject;
    body?: z.ZodObject;
  };
  /**
   * The multipart form field a file may be sent in (`multipart/form-data`, the other fields beside
   * it); the gateway streams such forms through rather than reading them whole.
   */
  fileField?: string;
  /** The 200 answer is a file's bytes with the file's own content type, not JSON. */
  binaryResponse?: boolean;
  /**
   * The 200 answer is a stream of server-sent events (`text/event-stream`) whose frames carry
   * `responses[200]` as their `data:`, rather than one JSON document.
   */
  eventStream?: boolean;
  /** Success responses by HTTP status; error responses are added to every operation. */
  responses: { [status: number]: z.ZodType };
}

export function defineOperation<const T extends Operation>(operation: T): T {
  return operation;
}
