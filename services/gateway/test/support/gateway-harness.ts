import { randomBytes } from 'node:crypto';
import {
  CreateOrganizationResponseSchema,
  ProvisionChannelRequestSchema,
  ProvisionChannelResponseSchema,
  UpdateChannelRequestSchema,
  UpdateChannelResponseSchema,
  type ChannelSummary,
  type CreateOrganizationResponse,
  type Plan,
  type ProvisionChannelRequest,
  type UpdateChannelRequest,
} from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import {
  createContractStub,
  stopInOrder,
  stubRoute,
  type ContractStub,
  type StubbedHandler,
} from '../../../../test/support/contract-stub';
import { MONGODB_URL, randomSecret } from '../../../../test/support/test-infra';
import { gatewayConfigSchema, type GatewayConfig } from '../../src/config';
import { startService as startGateway } from '../../src/start-service';

export interface GatewayStack {
  gateway: RunningService<GatewayConfig>;
  /** Messaging's channel routes, played by a contract-checked stub. */
  messaging: ContractStub;
  /** The channels the messaging stub provisioned, by company id. */
  channels: Map<number, ChannelSummary>;
  adminToken: string;
  internalSecret: string;
  createOrganization(plan?: Plan, name?: string): Promise<CreateOrganizationResponse>;
  stop(): Promise<void>;
}

/** Messaging's internal channel routes the gateway calls, with the contracts' schemas. */
export const PROVISION_CHANNEL = {
  method: 'post',
  path: '/internal/channels',
  request: { body: ProvisionChannelRequestSchema },
  responses: { 200: ProvisionChannelResponseSchema },
} as const;
export const UPDATE_CHANNEL = {
  method: 'put',
  path: '/internal/channels/{company_id}',
  request: { body: UpdateChannelRequestSchema },
  responses: { 200: UpdateChannelResponseSchema },
} as const;

const digits = (count: number) =>
  Array.from(randomBytes(count), (byte) => String(byte % 10)).join('');

/**
 * Messaging's side of the gateway's organization admin, as a stub: a channel per company, made
 * once (the route is idempotent per company), updated in place, 404 for a company it never saw.
 */
function messagingChannelRoutes(channels: Map<number, ChannelSummary>): StubbedHandler[] {
  return [
    stubRoute(PROVISION_CHANNEL, ({ body }) => {
      const { company_id } = body as ProvisionChannelRequest;
      const channel = channels.get(company_id) ?? {
        inbound_url: `http://127.0.0.1:8080/webhook/svc/receive/${randomBytes(32).toString('base64url').slice(0, 43)}`,
        verify_token: randomSecret(),
        app_secret: randomSecret(),
        phone_number_id: digits(15),
        display_phone_number: `+1 555 ${digits(7)}`,
      };
      channels.set(company_id, channel);
      return { status: 200, body: { status: 'success', channel } };
    }),
    stubRoute(UPDATE_CHANNEL, ({ params, body }) => {
      const company_id = Number(params.company_id);
      const channel = channels.get(company_id);
      if (!channel) return { status: 404, body: { status: 'error', message: 'No channel' } };
      const changes = body as UpdateChannelRequest;
      return {
        status: 200,
        body: {
          status: 'success',
          channel: {
            company_id,
            provider_base_url: changes.provider_base_url ?? 'http://127.0.0.1:9',
            api_version: changes.api_version ?? 'v24.0',
            phone_number_id: changes.phone_number_id ?? channel.phone_number_id,
            waba_id: changes.waba_id ?? digits(15),
            display_phone_number: changes.display_phone_number ?? channel.display_phone_number,
            inbound_url: channel.inbound_url,
          },
        },
      };
    }),
  ];
}

/**
 * The gateway alone, in-process on a free port, with messaging (which provisions each new
 * organization's channel) played by a contract-checked stub. The services it forwards to are
 * whatever the test points `gatewayEnv` at (e.g. `{ CONTACTS_URL: stub.url }`); what happens
 * behind them is their own tests', and the whole path the e2e tests'.
 */
export async function startGatewayStack(options: {
  dbPrefix: string;
  amqpUrl: string;
  internalSecret?: string;
  gatewayEnv?: Record<string, string>;
  /** More routes of the messaging stub than the channel routes. */
  messagingRoutes?: StubbedHandler[];
}): Promise<GatewayStack> {
  const adminToken = randomSecret();
  const internalSecret = options.internalSecret ?? randomSecret();
  const channels = new Map<number, ChannelSummary>();
  const messaging = await createContractStub('messaging', [
    ...messagingChannelRoutes(channels),
    ...(options.messagingRoutes ?? []),
  ]);
  const gateway = await startGateway(
    gatewayConfigSchema.parse({
      MONGODB_URL,
      MONGODB_DB_PREFIX: options.dbPrefix,
      AMQP_URL: options.amqpUrl,
      INTERNAL_API_SECRET: internalSecret,
      LOG_LEVEL: 'silent',
      PORT: '0',
      ADMIN_API_TOKEN: adminToken,
      MESSAGING_URL: messaging.url,
      // Tests ask faster than the clients the plans are made for; the limits have tests of their own.
      API_RATE_SCALE: '1000',
      ADMIN_RATE_PER_SECOND: '1000',
      FAILED_AUTH_PER_MINUTE: '100000',
      ...options.gatewayEnv,
    }),
  ).catch(async (error: unknown) => {
    await messaging.stop();
    throw error;
  });

  return {
    gateway,
    messaging,
    channels,
    adminToken,
    internalSecret,
    async createOrganization(plan = 'free', name = 'Test Org') {
      const response = await fetch(`${gateway.url}/admin/organizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, plan }),
      });
      if (response.status !== 201) {
        throw new Error(`creating an organization failed: ${await response.text()}`);
      }
      return CreateOrganizationResponseSchema.parse(await response.json());
    },
    stop: () =>
      stopInOrder(
        () => gateway.stop(),
        () => messaging.stop(),
      ),
  };
}
