import {
  INTERNAL_SECRET_HEADER,
  USER_HEADERS,
  orgHeaders,
  type Plan,
} from '@switchboard/contracts';
import type { LooseJson } from './test-infra';

/** The organization a forwarded request acts for, as the gateway states it in trusted headers. */
export interface ActingOrganization {
  company_id: number;
  plan: Plan;
  plan_started_at: Date;
}

let companySeq = 0;
/**
 * An organization of a service's component test. The gateway owns organizations; a service sees
 * only the headers that name one, so its tests need no gateway to have one.
 */
export function actingOrganization(plan: Plan = 'free'): ActingOrganization {
  companySeq += 1;
  return { company_id: companySeq, plan, plan_started_at: new Date() };
}

export interface ForwardedAnswer {
  status: number;
  body: LooseJson;
  headers: Headers;
}

/**
 * Calls a service's public operations as the gateway forwards a customer's call to them (see
 * the gateway's service proxy): the internal secret, the organization's headers and, for a
 * console call, the signed-in user; no token, which the gateway checks and removes.
 * A service's component tests use it to test the service alone; the gateway's own part
 * (tokens, rate limits, routing) has the gateway's tests, and the whole path the e2e tests.
 */
export function forwardedClient(
  serviceUrl: string,
  internalSecret: string,
  organization: ActingOrganization,
  user?: { user_id: number; role: string },
) {
  const headersOf = (extra: Record<string, string> = {}): Record<string, string> => ({
    [INTERNAL_SECRET_HEADER]: internalSecret,
    ...orgHeaders(organization),
    ...(user
      ? { [USER_HEADERS.userId]: String(user.user_id), [USER_HEADERS.role]: user.role }
      : {}),
    ...extra,
  });
  const call = async (path: string, init: RequestInit): Promise<ForwardedAnswer> => {
    const response = await fetch(serviceUrl + path, init);
    const text = await response.text();
    let body: LooseJson = {};
    if (text) {
      try {
        body = JSON.parse(text) as LooseJson;
      } catch {
        body = { text };
      }
    }
    return { status: response.status, body, headers: response.headers };
  };
  const operationPath = (operation: string) => `/api/svc/${operation}`;
  return {
    organization,
    /** The headers the gateway forwards this organization's calls with. */
    headers: () => headersOf(),
    async get(operation: string, query: Record<string, string | number> = {}) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) params.append(name, String(value));
      const search = params.size > 0 ? `?${params}` : '';
      return call(operationPath(operation) + search, { headers: headersOf() });
    },
    /** A JSON body (any method), with extra headers such as Idempotency-Key. */
    async send(
      method: string,
      operation: string,
      body: unknown = {},
      headers: Record<string, string> = {},
    ) {
      return call(operationPath(operation), {
        method,
        headers: headersOf({ 'content-type': 'application/json', ...headers }),
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    /** A form-encoded body, e.g. `name=Ana&custom[city]=Rome`. */
    async form(method: string, operation: string, form: string) {
      return call(operationPath(operation), {
        method,
        headers: headersOf({ 'content-type': 'application/x-www-form-urlencoded' }),
        body: form,
      });
    },
    /** multipart/form-data, streamed through as the gateway does. */
    async multipart(operation: string, form: FormData) {
      return call(operationPath(operation), { method: 'POST', headers: headersOf(), body: form });
    },
    /** Any path of the service, with the forwarded headers (e.g. `/developer/webhooks/...`). */
    async raw(method: string, path: string, body?: unknown) {
      return call(path, {
        method,
        headers: headersOf(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
  };
}
export type ForwardedClient = ReturnType<typeof forwardedClient>;
