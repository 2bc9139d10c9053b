import { AI_BOT_OPERATIONS } from './http/ai-bot-api';
import { AUTOMATED_REPLY_OPERATIONS } from './http/automated-replies-api';
import { CAMPAIGN_OPERATIONS } from './http/campaigns-api';
import { CONTACTS_OPERATIONS } from './http/contacts-api';
import { FLOW_OPERATIONS } from './http/flows-api';
import { GATEWAY_OPERATIONS } from './http/gateway-api';
import { LIVE_EVENT_OPERATIONS } from './http/live-events-api';
import { MESSAGING_OPERATIONS } from './http/messaging-api';
import type { HttpMethod, Operation } from './http/operation';
import { TEMPLATE_OPERATIONS } from './http/templates-api';
import { USAGE_OPERATIONS } from './http/usage-api';
import { SESSION_OPERATIONS, USER_OPERATIONS } from './http/users-api';
import { WEBHOOK_OPERATIONS } from './http/webhooks-api';
import type { ServiceName } from './service-names';

/**
 * The registry of operations: every HTTP operation, defined once with its owner. The OpenAPI
 * document, the gateway's routing table and each service's served operations all come from here;
 * a new API file adds one line.
 */
const DEFINED_OPERATIONS = [
  ...GATEWAY_OPERATIONS,
  ...SESSION_OPERATIONS,
  ...USER_OPERATIONS,
  ...USAGE_OPERATIONS,
  ...LIVE_EVENT_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...CONTACTS_OPERATIONS,
  ...MESSAGING_OPERATIONS,
  ...TEMPLATE_OPERATIONS,
  ...CAMPAIGN_OPERATIONS,
  ...AI_BOT_OPERATIONS,
  ...FLOW_OPERATIONS,
  ...AUTOMATED_REPLY_OPERATIONS,
] as const satisfies readonly Operation[];
export const ALL_OPERATIONS: readonly Operation[] = DEFINED_OPERATIONS;

/** Where the API's named operations live: `/api/svc/<name>`. */
export const API_OPERATION_PREFIX = '/api/svc/';

type NameOf<Path> = Path extends `/api/svc/${infer Name}`
  ? Name extends `${string}/${string}`
    ? never
    : Name
  : never;
/** Every `/api/svc/<name>` operation, in the spelling the API publishes. */
export type ApiOperationName = NameOf<(typeof DEFINED_OPERATIONS)[number]['path']>;

/** One `/api/svc/<name>` operation as routed: its owner and every method it is defined with. */
export interface ApiOperation {
  name: ApiOperationName;
  path: `/api/svc/${string}`;
  owner: ServiceName;
  methods: readonly HttpMethod[];
}

const NAMED_PATH = /^\/api\/svc\/[A-Za-z]+$/;

/** The `/api/svc/<name>` operations among `definitions`, each with the methods it is defined with. */
export function apiOperationsOf(
  definitions: readonly Operation[],
): ReadonlyMap<ApiOperationName, ApiOperation> {
  const operations = new Map<ApiOperationName, ApiOperation>();
  for (const operation of definitions) {
    if (!NAMED_PATH.test(operation.path)) continue;
    const name = operation.path.slice(API_OPERATION_PREFIX.length) as ApiOperationName;
    const known = operations.get(name);
    if (known && known.owner !== operation.owner) {
      throw new Error(`${name} is defined with two owners, ${known.owner} and ${operation.owner}`);
    }
    operations.set(name, {
      name,
      path: `/api/svc/${name}`,
      owner: operation.owner,
      methods: [...(known?.methods ?? []), operation.method],
    });
  }
  return operations;
}

/** The `/api/svc/<name>` operations, by name. */
export const API_OPERATIONS = apiOperationsOf(ALL_OPERATIONS);

/** The `/api/svc/<name>` operations `service` answers (and must serve). */
export function operationsServedBy(service: ServiceName): ApiOperation[] {
  return [...API_OPERATIONS.values()].filter((operation) => operation.owner === service);
}

/** A service the gateway forwards operations to. */
export type ApiOperationOwner = Exclude<ServiceName, 'gateway'>;

/**
 * The gateway's routing table: every `/api/svc/<name>` operation it forwards, and to whom (its own
 * operations, such as `me`, it answers itself).
 */
export const API_OPERATION_OWNERS: Readonly<Partial<Record<ApiOperationName, ApiOperationOwner>>> =
  Object.fromEntries(
    [...API_OPERATIONS.values()]
      .filter((operation) => operation.owner !== 'gateway')
      .map((operation) => [operation.name, operation.owner]),
  );
