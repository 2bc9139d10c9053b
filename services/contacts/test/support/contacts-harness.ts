import { INTERNAL_SECRET_HEADER, orgHeaders, type Plan } from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import { startGatewayStack, type GatewayStack } from '../../../../test/support/gateway-stack';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  jsonBody,
  randomSecret,
  uniquePrefix,
  type LooseJson,
} from '../../../../test/support/test-infra';
import { contactsConfigSchema, type ContactsConfig } from '../../src/config';
import { startService as startContacts } from '../../src/start-service';

export interface Answer {
  status: number;
  body: LooseJson;
}

async function answer(response: Response): Promise<Answer> {
  return { status: response.status, body: await jsonBody(response) };
}

/** Calls `/api/svc/*` through the gateway with one organization's token, as a customer would. */
export function apiClient(gatewayUrl: string, token: string) {
  const url = (operation: string) => `${gatewayUrl}/api/svc/${operation}`;
  return {
    async get(operation: string, query: Record<string, string | number> = {}): Promise<Answer> {
      const params = new URLSearchParams({ token });
      for (const [name, value] of Object.entries(query)) params.append(name, String(value));
      return answer(await fetch(`${url(operation)}?${params}`));
    },
    /** JSON body with the token in it (the published API authentication). */
    async send(method: string, operation: string, body: unknown = {}): Promise<Answer> {
      const payload = typeof body === 'object' && body !== null ? { ...body, token } : body;
      return answer(
        await fetch(url(operation), {
          method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        }),
      );
    },
    /** A form-encoded body, e.g. `name=Ana&custom[city]=Rome`. */
    async form(method: string, operation: string, form: string): Promise<Answer> {
      return answer(
        await fetch(url(operation), {
          method,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `token=${encodeURIComponent(token)}&${form}`,
        }),
      );
    },
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

export interface ContactsSystem {
  contacts: RunningService<ContactsConfig>;
  /** The gateway, with messaging, which it needs to create organizations. */
  stack: GatewayStack;
  internalSecret: string;
  amqpUrl: string;
  newOrganization(plan?: Plan): Promise<{ company_id: number; api: ApiClient }>;
  /** Calls contacts directly, stating the organization as the gateway would. */
  direct(
    method: string,
    path: string,
    organization: { company_id: number; plan: Plan; plan_started_at: Date },
    body?: unknown,
  ): Promise<Answer>;
  /** Calls the internal API as another service would. */
  internal(path: string, body: unknown, secret?: string): Promise<Answer>;
  stop(): Promise<void>;
}

/** Contacts and the gateway in-process, on a database prefix and a RabbitMQ vhost of their own. */
export async function startContactsSystem(
  label: string,
  env: Record<string, string> = {},
): Promise<ContactsSystem> {
  const prefix = uniquePrefix(label);
  const broker = await isolatedAmqpUrl(label);
  const internalSecret = randomSecret();
  const contacts = await startContacts(
    contactsConfigSchema.parse({
      PORT: '0',
      MONGODB_URL,
      MONGODB_DB_PREFIX: prefix,
      AMQP_URL: broker.url,
      INTERNAL_API_SECRET: internalSecret,
      LOG_LEVEL: 'silent',
      ...env,
    }),
  );
  const stack = await startGatewayStack({
    dbPrefix: prefix,
    amqpUrl: broker.url,
    internalSecret,
    gatewayEnv: { CONTACTS_URL: contacts.url, PROXY_TIMEOUT_MS: '30000' },
  });

  return {
    contacts,
    stack,
    internalSecret,
    amqpUrl: broker.url,
    async newOrganization(plan: Plan = 'free') {
      const created = await stack.createOrganization(plan);
      return {
        company_id: created.organization.company_id,
        api: apiClient(stack.gateway.url, created.token),
      };
    },
    async direct(method, path, organization, body) {
      return answer(
        await fetch(contacts.url + path, {
          method,
          headers: {
            [INTERNAL_SECRET_HEADER]: internalSecret,
            'content-type': 'application/json',
            ...orgHeaders(organization),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    },
    async internal(path, body, secret = internalSecret) {
      return answer(
        await fetch(contacts.url + path, {
          method: 'POST',
          headers: { [INTERNAL_SECRET_HEADER]: secret, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    },
    async stop() {
      await stack.stop();
      await contacts.stop();
      await dropDatabasesWithPrefix(prefix);
      await broker.drop();
    },
  };
}

/** Runs `count` calls, at most `parallel` at a time. */
export async function inBatches<T>(
  count: number,
  parallel: number,
  call: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += parallel) {
    const size = Math.min(parallel, count - start);
    results.push(...(await Promise.all(Array.from({ length: size }, (_, i) => call(start + i)))));
  }
  return results;
}

/** A valid phone number that no other call of this test run uses. */
let phoneSeq = Math.floor(Math.random() * 1_000_000);
export const uniquePhone = () => `39347${String(phoneSeq++).padStart(7, '0')}`;
