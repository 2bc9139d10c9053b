import {
  CreateOrganizationResponseSchema,
  type CreateOrganizationResponse,
} from '@switchboard/contracts';
import {
  PORT_SPAN,
  launchSystem,
  type LaunchOptions,
  type LaunchedSystem,
  type ServiceProcessName,
} from '../../scripts/launcher';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  freePortBlock,
  isolatedAmqpUrl,
  jsonBody,
  randomSecret,
  uniquePrefix,
  type LooseJson,
} from './test-infra';

/**
 * Every service and the provider simulator as OS processes (the launcher `npm start` uses),
 * on a free port block, with this test file's own database prefix and RabbitMQ virtual host.
 */
export interface E2eSystem {
  system: LaunchedSystem;
  gateway: string;
  simulator: string;
  amqpUrl: string;
  /** Each service's database is this prefix and its name. */
  dbPrefix: string;
  adminToken: string;
  internalSecret: string;
  /** Every line the processes printed, prefixed with the service's name. */
  output: string[];
  createOrganization(
    name: string,
    plan?: 'free' | 'standard' | 'premium',
    /** More fields of the creation request, e.g. `owner_email`. */
    extra?: Record<string, unknown>,
  ): Promise<CreateOrganizationResponse>;
  api(token: string): ApiClient;
  stop(): Promise<void>;
}

export interface ApiResult {
  status: number;
  body: LooseJson;
}

export interface ApiClient {
  get(operation: string, query?: Record<string, string | number>): Promise<ApiResult>;
  post(operation: string, body?: Record<string, unknown>): Promise<ApiResult>;
}

export async function startE2eSystem(
  name: string,
  env: Record<string, string> = {},
  launch: Pick<LaunchOptions, 'supervise'> = {},
): Promise<E2eSystem> {
  const prefix = uniquePrefix(name);
  const adminToken = randomSecret();
  const internalSecret = randomSecret();
  const broker = await isolatedAmqpUrl(name);
  const output: string[] = [];
  const basePort = await freePortBlock(PORT_SPAN);
  let system: LaunchedSystem;
  try {
    system = await launchSystem({
      env: {
        MONGODB_URL,
        MONGODB_DB_PREFIX: prefix,
        AMQP_URL: broker.url,
        ADMIN_API_TOKEN: adminToken,
        INTERNAL_API_SECRET: internalSecret,
        LOG_LEVEL: 'warn',
        // Tests ask faster than the clients the plans are made for; the limits have tests of their own.
        API_RATE_SCALE: '1000',
        ADMIN_RATE_PER_SECOND: '1000',
        FAILED_AUTH_PER_MINUTE: '100000',
        ...env,
      },
      basePort,
      ...launch,
      onLine: (service: ServiceProcessName, line: string) => output.push(`${service}: ${line}`),
    });
  } catch (error) {
    await broker.drop();
    // What the processes printed last says why one did not start (its fatal error).
    if (error instanceof Error) error.message += `\n${output.slice(-30).join('\n')}`;
    throw error;
  }
  const gateway = system.urls.gateway;

  const createOrganization: E2eSystem['createOrganization'] = async (
    orgName,
    plan = 'free',
    extra = {},
  ) => {
    const response = await fetch(`${gateway}/admin/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: orgName, plan, ...extra }),
    });
    if (response.status !== 201) {
      throw new Error(
        `creating an organization answered ${response.status}: ${await response.text()}`,
      );
    }
    return CreateOrganizationResponseSchema.parse(await jsonBody(response));
  };

  const api = (token: string): ApiClient => ({
    async get(operation, query = {}) {
      const params = new URLSearchParams({ token });
      for (const [key, value] of Object.entries(query)) params.append(key, String(value));
      const response = await fetch(`${gateway}/api/svc/${operation}?${params}`);
      return { status: response.status, body: await jsonBody(response) };
    },
    async post(operation, body = {}) {
      const response = await fetch(`${gateway}/api/svc/${operation}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, token }),
      });
      return { status: response.status, body: await jsonBody(response) };
    },
  });

  return {
    system,
    gateway,
    simulator: system.urls['provider-simulator'],
    amqpUrl: broker.url,
    dbPrefix: prefix,
    adminToken,
    internalSecret,
    output,
    createOrganization,
    api,
    async stop() {
      await system.stop();
      await dropDatabasesWithPrefix(prefix);
      await broker.drop();
    },
  };
}

/** Polls until `probe` yields a value, failing with `what` after `timeoutMs`. */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Calls the provider simulator's control API (`/sim…`): a GET without a body, a POST with one.
 * An answer other than 2xx (a fault is created with 201) fails the test, with what it said.
 */
export async function callSimulator(
  simulator: string,
  path: string,
  body?: unknown,
): Promise<LooseJson> {
  const response = await fetch(`${simulator}/sim${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });
  if (!response.ok) {
    throw new Error(`simulator ${path} answered ${response.status}: ${await response.text()}`);
  }
  return jsonBody(response);
}
