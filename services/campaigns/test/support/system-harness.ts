import { connect, type Channel as AmqpChannel, type ChannelModel } from 'amqplib';
import {
  BrokerEventSchema,
  INTERNAL_SECRET_HEADER,
  EXCHANGES,
  CreateOrganizationResponseSchema,
  type BrokerEvent,
  type CreateOrganizationResponse,
  type Plan,
} from '@switchboard/contracts';
import { createSimulator, silentLogger, type Simulator } from '@switchboard/provider-simulator';
import type { RunningService } from '@switchboard/service-kit';
import { campaignsConfigSchema, type CampaignsConfig } from '../../src/config';
import {
  startService as startCampaigns,
  type StartOptions as CampaignsStartOptions,
} from '../../src/start-service';
import { contactsConfigSchema, type ContactsConfig } from '../../../contacts/src/config';
import { startService as startContacts } from '../../../contacts/src/start-service';
import { inboundConfigSchema, type InboundConfig } from '../../../inbound/src/config';
import { startService as startInbound } from '../../../inbound/src/start-service';
import { webhooksConfigSchema, type WebhooksConfig } from '../../../webhooks/src/config';
import { startService as startWebhooks } from '../../../webhooks/src/start-service';
import { gatewayConfigSchema, type GatewayConfig } from '../../../gateway/src/config';
import { startService as startGateway } from '../../../gateway/src/start-service';
import { messagingConfigSchema, type MessagingConfig } from '../../../messaging/src/config';
import { startService as startMessaging } from '../../../messaging/src/start-service';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  freePortBlock,
  isolatedAmqpUrl,
  jsonBody,
  randomSecret,
  uniquePrefix,
  type LooseJson,
} from '../../../../test/support/test-infra';
import { waitFor } from '../../../../test/support/polling';
export { eventsOf, sleep, uniquePhone, waitFor } from '../../../../test/support/polling';

export interface Answer {
  status: number;
  body: LooseJson;
  headers: Headers;
}

async function answer(response: Response): Promise<Answer> {
  return { status: response.status, body: await jsonBody(response), headers: response.headers };
}

/** Calls `/api/svc/*` through the gateway with one organization's token, as a customer would. */
export function apiClient(gatewayUrl: string, token: string) {
  const url = (operation: string) => `${gatewayUrl}/api/svc/${operation}`;
  return {
    token,
    async get(operation: string, query: Record<string, string | number> = {}): Promise<Answer> {
      const params = new URLSearchParams({ token });
      for (const [name, value] of Object.entries(query)) params.append(name, String(value));
      return answer(await fetch(`${url(operation)}?${params}`));
    },
    /** A JSON body with the token in it (the published API authentication); extra headers such as Idempotency-Key. */
    async post(
      operation: string,
      body: Record<string, unknown>,
      headers: Record<string, string> = {},
    ): Promise<Answer> {
      return answer(
        await fetch(url(operation), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ ...body, token }),
        }),
      );
    },
    /** multipart/form-data, with the token as a bearer (the gateway cannot read it from the body). */
    async multipart(operation: string, form: FormData): Promise<Answer> {
      return answer(
        await fetch(url(operation), {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: form,
        }),
      );
    },
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

export interface Organization {
  created: CreateOrganizationResponse;
  company_id: number;
  api: ApiClient;
}

export type MessageReceived = Extract<BrokerEvent, { event: 'message_received' }>;

/** The gateway and messaging, in-process, as the whole system's front door. */
export interface GatewayStack {
  gateway: RunningService<GatewayConfig>;
  messaging: RunningService<MessagingConfig>;
  adminToken: string;
  createOrganization(plan?: Plan, name?: string): Promise<CreateOrganizationResponse>;
  /** Starts messaging again on its old port after a test stopped it. */
  restartMessaging(): Promise<void>;
  stop(): Promise<void>;
}

async function startGatewayStack(options: {
  dbPrefix: string;
  amqpUrl: string;
  internalSecret: string;
  gatewayEnv: Record<string, string>;
  messagingEnv: Record<string, string>;
}): Promise<GatewayStack> {
  const adminToken = randomSecret();
  const common = {
    MONGODB_URL,
    MONGODB_DB_PREFIX: options.dbPrefix,
    AMQP_URL: options.amqpUrl,
    INTERNAL_API_SECRET: options.internalSecret,
    LOG_LEVEL: 'silent',
    PORT: '0',
  };
  const messagingConfig = messagingConfigSchema.parse({ ...common, ...options.messagingEnv });
  const messaging = await startMessaging(messagingConfig);
  const gateway = await startGateway(
    gatewayConfigSchema.parse({
      ...common,
      ADMIN_API_TOKEN: adminToken,
      MESSAGING_URL: messaging.url,
      API_RATE_SCALE: '1000',
      ADMIN_RATE_PER_SECOND: '1000',
      FAILED_AUTH_PER_MINUTE: '100000',
      ...options.gatewayEnv,
    }),
  );
  const stack: GatewayStack = {
    gateway,
    messaging,
    adminToken,
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
    async restartMessaging() {
      stack.messaging = await startMessaging({ ...messagingConfig, PORT: stack.messaging.port });
    },
    async stop() {
      await gateway.stop();
      await stack.messaging.stop();
    },
  };
  return stack;
}

export interface MessagingSystem {
  stack: GatewayStack;
  simulator: Simulator;
  simulatorUrl: string;
  contacts: RunningService<ContactsConfig>;
  inbound: RunningService<InboundConfig>;
  campaigns: RunningService<CampaignsConfig> | undefined;
  webhooks: RunningService<WebhooksConfig> | undefined;
  internalSecret: string;
  amqpUrl: string;
  dbPrefix: string;
  /** Every event published on `svc.events`, in arrival order, each checked against contracts. */
  events: BrokerEvent[];
  /** Events that did not validate against `BrokerEventSchema` (should stay empty). */
  invalidEvents: unknown[];
  newOrganization(plan?: Plan, name?: string): Promise<Organization>;
  /**
   * An end user writes to the organization (`input` as the simulator's `POST /sim/inbound` takes
   * it, with `from`); resolves with the `message_received` event it became.
   */
  customerWrites(
    org: Organization,
    input: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<MessageReceived>;
  /** The simulator's control API (`/sim/...`). */
  sim(method: string, path: string, body?: unknown): Promise<LooseJson>;
  /** POSTs to one of messaging's internal routes (`/internal/...`), as another service would. */
  messagingInternal(path: string, body: unknown): Promise<{ status: number; body: LooseJson }>;
  /** Publishes to an exchange of the test's vhost, as another service would. */
  publish(exchange: string, routingKey: string, body: unknown, messageId: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Every service a message passes through, in-process behind the gateway: messaging, contacts,
 * inbound, campaigns and webhooks when asked, and the provider simulator (the outside world), on
 * a database prefix and a vhost of their own. Campaigns' own tests start campaigns alone
 * (campaigns-harness.ts); three of messaging's tests still run on this one and are to start
 * messaging alone as its other tests do (docs/architecture.md, "How component tests are shaped").
 */
export async function startMessagingSystem(
  label: string,
  options: {
    messagingEnv?: Record<string, string>;
    simulator?: Parameters<typeof createSimulator>[0];
    /** Also start campaigns (with these variables), behind the same gateway. */
    campaignsEnv?: Record<string, string>;
    /** Steps of the answer order other parts provide (flows, the AI bot), for campaigns. */
    campaignsOptions?: CampaignsStartOptions;
    /** Also start webhooks (with these variables), behind the same gateway: events reach customers. */
    webhooksEnv?: Record<string, string>;
    /** More gateway settings (e.g. an owner's URL pointed at a recording proxy). */
    gatewayEnv?: Record<string, string>;
  } = {},
): Promise<MessagingSystem> {
  const dbPrefix = uniquePrefix(label);
  const vhost = await isolatedAmqpUrl(label);
  const internalSecret = randomSecret();
  const simulator = createSimulator({
    statusDelaysMs: [20, 20, 20],
    webhookRetryDelaysMs: [100, 200, 400],
    logger: silentLogger,
    ...options.simulator,
  });
  const { url: simulatorUrl } = await simulator.start(0);
  const common = {
    MONGODB_URL,
    MONGODB_DB_PREFIX: dbPrefix,
    AMQP_URL: vhost.url,
    INTERNAL_API_SECRET: internalSecret,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
  };
  const contacts = await startContacts(contactsConfigSchema.parse(common));
  const ports = await freePortBlock(4);
  const gatewayUrl = `http://127.0.0.1:${ports}`;
  const inboundUrl = `http://127.0.0.1:${ports + 1}`;
  const campaignsUrl = `http://127.0.0.1:${ports + 2}`;
  const webhooksUrl = `http://127.0.0.1:${ports + 3}`;
  const stack = await startGatewayStack({
    dbPrefix,
    amqpUrl: vhost.url,
    internalSecret,
    gatewayEnv: {
      PORT: String(ports),
      CONTACTS_URL: contacts.url,
      INBOUND_URL: inboundUrl,
      CAMPAIGNS_URL: campaignsUrl,
      WEBHOOKS_URL: webhooksUrl,
      PROXY_TIMEOUT_MS: '30000',
      ...options.gatewayEnv,
    },
    messagingEnv: {
      LOG_LEVEL: common.LOG_LEVEL,
      PUBLIC_BASE_URL: gatewayUrl,
      PROVIDER_BASE_URL: simulatorUrl,
      PROVIDER_SIMULATOR_URL: simulatorUrl,
      CONTACTS_URL: contacts.url,
      SEND_RETRY_BASE_MS: '20',
      EVENT_RELAY_SWEEP_MS: '200',
      EVENT_RELAY_GRACE_MS: '300',
      ...options.messagingEnv,
    },
  });
  const inbound = await startInbound(
    inboundConfigSchema.parse({
      ...common,
      PORT: String(ports + 1),
      MESSAGING_URL: stack.messaging.url,
      RELAY_INTERVAL_MS: '200',
      RELAY_GRACE_MS: '500',
    }),
  );

  const campaigns = options.campaignsEnv
    ? await startCampaigns(
        campaignsConfigSchema.parse({
          ...common,
          PORT: String(ports + 2),
          MESSAGING_URL: stack.messaging.url,
          CONTACTS_URL: contacts.url,
          GATEWAY_URL: stack.gateway.url,
          SCHEDULER_INTERVAL_MS: '200',
          EVENT_RELAY_SWEEP_MS: '200',
          EVENT_RELAY_GRACE_MS: '300',
          ...options.campaignsEnv,
        }),
        options.campaignsOptions,
      )
    : undefined;

  const webhooks = options.webhooksEnv
    ? await startWebhooks(
        webhooksConfigSchema.parse({
          ...common,
          PORT: String(ports + 3),
          ...options.webhooksEnv,
        }),
      )
    : undefined;

  const events: BrokerEvent[] = [];
  const invalidEvents: unknown[] = [];
  const amqp: ChannelModel = await connect(vhost.url);
  const tap: AmqpChannel = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.events, '#');
  await tap.consume(queue, (msg) => {
    if (!msg) return;
    const json: unknown = JSON.parse(msg.content.toString());
    const parsed = BrokerEventSchema.safeParse(json);
    if (parsed.success && parsed.data.id === msg.properties.messageId) events.push(parsed.data);
    else invalidEvents.push(json);
    tap.ack(msg);
  });
  const publisher = await amqp.createConfirmChannel();

  const sim: MessagingSystem['sim'] = async (method, path, body) => {
    const response = await fetch(`${simulatorUrl}/sim${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return (text ? JSON.parse(text) : {}) as LooseJson;
  };

  return {
    stack,
    simulator,
    simulatorUrl,
    contacts,
    inbound,
    campaigns,
    webhooks,
    internalSecret,
    amqpUrl: vhost.url,
    dbPrefix,
    events,
    invalidEvents,
    async newOrganization(plan: Plan = 'standard', name = 'Messaging Co') {
      const created = await stack.createOrganization(plan, name);
      return {
        created,
        company_id: created.organization.company_id,
        api: apiClient(stack.gateway.url, created.token),
      };
    },
    async customerWrites(org, input, timeoutMs = 10_000) {
      const injected = await sim('POST', '/inbound', {
        phone_number_id: org.created.channel.phone_number_id,
        ...input,
      });
      return waitFor(
        () =>
          events.find(
            (event): event is MessageReceived =>
              event.event === 'message_received' && event.data.message_wamid === injected.wamid,
          ),
        timeoutMs,
        `message_received of ${String(injected.wamid)}`,
      );
    },
    sim,
    async messagingInternal(path, body) {
      const response = await fetch(`${stack.messaging.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_SECRET_HEADER]: internalSecret },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : {}) as LooseJson };
    },
    async publish(exchange, routingKey, body, messageId) {
      publisher.publish(exchange, routingKey, Buffer.from(JSON.stringify(body)), {
        messageId,
        persistent: true,
        contentType: 'application/json',
      });
      await publisher.waitForConfirms();
    },
    async stop() {
      await amqp.close().catch(() => undefined);
      await inbound.stop();
      await campaigns?.stop();
      await webhooks?.stop();
      await stack.stop();
      await contacts.stop();
      await simulator.stop();
      await dropDatabasesWithPrefix(dbPrefix);
      await vhost.drop();
    },
  };
}
