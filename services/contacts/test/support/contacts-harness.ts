import { INTERNAL_SECRET_HEADER, orgHeaders, type Plan } from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import {
  actingOrganization,
  forwardedClient,
  type ActingOrganization,
} from '../../../../test/support/forwarded-client';
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

/**
 * Calls contacts' `/api/svc/*` operations for one organization as the gateway forwards a
 * customer's call (the gateway's token check and routing are the gateway's tests).
 */
export function apiClient(contactsUrl: string, internalSecret: string, org: ActingOrganization) {
  const client = forwardedClient(contactsUrl, internalSecret, org);
  const plain = async (call: Promise<Answer>): Promise<Answer> => {
    const { status, body } = await call;
    return { status, body };
  };
  return {
    get: (operation: string, query: Record<string, string | number> = {}) =>
      plain(client.get(operation, query)),
    /** A JSON body. */
    send: (method: string, operation: string, body: unknown = {}) =>
      plain(client.send(method, operation, body)),
    /** A form-encoded body, e.g. `name=Ana&custom[city]=Rome`. */
    form: (method: string, operation: string, form: string) =>
      plain(client.form(method, operation, form)),
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

export interface ContactsSystem {
  contacts: RunningService<ContactsConfig>;
  internalSecret: string;
  amqpUrl: string;
  newOrganization(
    plan?: Plan,
  ): Promise<{ company_id: number; organization: ActingOrganization; api: ApiClient }>;
  /** The headers the gateway forwards a call of this organization with. */
  forwardedHeaders(organization: ActingOrganization): Record<string, string>;
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

/**
 * Contacts alone, in-process, on a database prefix and a RabbitMQ vhost of its own. Contacts
 * calls no other service; its callers (the gateway, messaging, campaigns) are played by the
 * test, with the headers and bodies the contracts give them.
 */
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

  return {
    contacts,
    internalSecret,
    amqpUrl: broker.url,
    async newOrganization(plan: Plan = 'free') {
      const organization = actingOrganization(plan);
      return {
        company_id: organization.company_id,
        organization,
        api: apiClient(contacts.url, internalSecret, organization),
      };
    },
    forwardedHeaders(organization) {
      return { [INTERNAL_SECRET_HEADER]: internalSecret, ...orgHeaders(organization) };
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
