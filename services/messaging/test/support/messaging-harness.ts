import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Channel as AmqpChannel, type ChannelModel } from 'amqplib';
import {
  API_OPERATIONS,
  BrokerEventMessageSchema,
  brokerEventsOf,
  INTERNAL_SECRET_HEADER,
  EXCHANGES,
  InboundChannelResponseSchema,
  ProviderEventMessageSchema,
  ProvisionChannelResponseSchema,
  ProviderWebhookSchema,
  routeProviderChange,
  type BrokerEvent,
  type ChannelSummary,
  type Plan,
} from '@switchboard/contracts';
import { createSimulator, silentLogger, type Simulator } from '@switchboard/provider-simulator';
import type { RunningService } from '@switchboard/service-kit';
import { stopInOrder } from '../../../../test/support/contract-stub';
import { actingOrganization, forwardedClient } from '../../../../test/support/forwarded-client';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  randomSecret,
  uniquePrefix,
  type LooseJson,
} from '../../../../test/support/test-infra';
import { messagingConfigSchema, type MessagingConfig } from '../../src/config';
import { startService as startMessaging } from '../../src/start-service';
import { startContactsStub, type ContactsStub } from './contacts-stub';
import { waitFor } from '../../../../test/support/polling';
export { eventsOf, sleep, uniquePhone, waitFor } from '../../../../test/support/polling';

export interface Answer {
  status: number;
  body: LooseJson;
  headers: Headers;
}

/**
 * Calls `/api/svc/*` for one organization as the gateway forwards a customer's call: to the
 * operation's owner (messaging itself, or the contacts stub), under its published name.
 */
export function apiClient(
  owners: { messaging: string; contacts: string },
  internalSecret: string,
  organization: ReturnType<typeof actingOrganization>,
  user?: ConsoleUser,
) {
  const clients = {
    messaging: forwardedClient(owners.messaging, internalSecret, organization, user),
    contacts: forwardedClient(owners.contacts, internalSecret, organization, user),
  };
  const route = (name: string) => {
    const operation = [...API_OPERATIONS.values()].find(
      (candidate) => candidate.name.toLowerCase() === name.toLowerCase(),
    );
    if (!operation || (operation.owner !== 'messaging' && operation.owner !== 'contacts')) {
      throw new Error(`${name} is not an operation of messaging or contacts`);
    }
    return { client: clients[operation.owner], name: operation.name };
  };
  return {
    organization,
    async get(operation: string, query: Record<string, string | number> = {}): Promise<Answer> {
      const { client, name } = route(operation);
      return client.get(name, query);
    },
    /** A JSON body, with extra headers such as Idempotency-Key. */
    async post(
      operation: string,
      body: Record<string, unknown>,
      headers: Record<string, string> = {},
    ): Promise<Answer> {
      const { client, name } = route(operation);
      return client.send('POST', name, body, headers);
    },
    /** multipart/form-data, streamed through as the gateway does. */
    async multipart(operation: string, form: FormData): Promise<Answer> {
      const { client, name } = route(operation);
      return client.multipart(name, form);
    },
    /**
     * GETs a URL messaging handed out under its public base URL (a media descriptor's), from
     * messaging itself, as the gateway forwards it.
     */
    async fetchPublic(url: string): Promise<Response> {
      const { pathname, search } = new URL(url);
      return fetch(owners.messaging + pathname + search, { headers: clients.messaging.headers() });
    },
    /** Any method, e.g. DELETE with a JSON body. */
    async send(method: string, operation: string, body: Record<string, unknown>): Promise<Answer> {
      const { client, name } = route(operation);
      return client.send(method, name, body);
    },
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

/** A user signed in to the console, as the gateway names them to a service it forwards to. */
export interface ConsoleUser {
  user_id: number;
  role: 'owner' | 'admin' | 'agent';
}

export interface Organization {
  /** What the admin saw when the organization was made: its channel, shown once. */
  created: {
    organization: { company_id: number; name: string; plan: Plan; plan_started_at: string };
    channel: ChannelSummary;
  };
  company_id: number;
  api: ApiClient;
  /**
   * The organization's calls as one of its users makes them from the console: the gateway has
   * signed them in and checked their role, and forwards who they are with each call.
   */
  asUser(user: ConsoleUser): ApiClient;
}

export type MessageReceived = Extract<BrokerEvent, { event: 'message_received' }>;

export interface MessagingSystem {
  /** Messaging, the one service running (a test that starts it again puts the new one here). */
  stack: { messaging: RunningService<MessagingConfig> };
  /** Stops messaging and starts it again on its port, with its variables and `env` over them. */
  restartMessaging(env?: Partial<MessagingConfig>): Promise<void>;
  /** The public base URL messaging puts in the links it hands out (the gateway's, in production). */
  publicUrl: string;
  simulator: Simulator;
  simulatorUrl: string;
  /** Contacts' internal and public routes that messaging and its tests use, as a contract stub. */
  contacts: ContactsStub;
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
  /** Calls one of messaging's internal routes with any method, as the gateway's admin API would. */
  messagingAdmin(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: LooseJson }>;
  /** Publishes to an exchange of the test's vhost, as another service would. */
  publish(exchange: string, routingKey: string, body: unknown, messageId: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Messaging alone, in-process on a database prefix and a vhost of its own, with what it talks to:
 * the provider simulator (the outside world), contacts as a contract stub, and inbound played by
 * a small server at the public URL that turns the simulator's webhooks into the broker messages
 * inbound publishes (`routeProviderChange`, checked against `ProviderEventMessageSchema`).
 * Organizations are made the way the gateway makes them: a company id and messaging's own
 * `POST /internal/channels`.
 */
export async function startMessagingSystem(
  label: string,
  options: {
    messagingEnv?: Record<string, string>;
    simulator?: Parameters<typeof createSimulator>[0];
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
  const contacts = await startContactsStub();
  const amqp: ChannelModel = await connect(vhost.url);
  const publisher = await amqp.createConfirmChannel();
  const publish: MessagingSystem['publish'] = async (exchange, routingKey, body, messageId) => {
    publisher.publish(exchange, routingKey, Buffer.from(JSON.stringify(body)), {
      messageId,
      persistent: true,
      contentType: 'application/json',
    });
    await publisher.waitForConfirms();
  };

  // Known once messaging listens; the inbound stand-in it needs is started first.
  let messagingUrl = '';
  const internalCall = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${messagingUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', [INTERNAL_SECRET_HEADER]: internalSecret },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as LooseJson };
  };
  const inbound = await startInboundStandIn(async (token) => {
    const found = await internalCall('GET', `/internal/channels/by-inbound-token/${token}`);
    return found.status === 200 ? InboundChannelResponseSchema.parse(found.body).channel : null;
  }, publish);

  const running = await startMessaging(
    messagingConfigSchema.parse({
      MONGODB_URL,
      MONGODB_DB_PREFIX: dbPrefix,
      AMQP_URL: vhost.url,
      INTERNAL_API_SECRET: internalSecret,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      PORT: '0',
      PUBLIC_BASE_URL: inbound.url,
      PROVIDER_BASE_URL: simulatorUrl,
      PROVIDER_SIMULATOR_URL: simulatorUrl,
      CONTACTS_URL: contacts.url,
      SEND_RETRY_BASE_MS: '20',
      EVENT_RELAY_SWEEP_MS: '200',
      EVENT_RELAY_GRACE_MS: '300',
      ...options.messagingEnv,
    }),
  );
  messagingUrl = running.url;
  const stack = { messaging: running };

  const events: BrokerEvent[] = [];
  const invalidEvents: unknown[] = [];
  const tap: AmqpChannel = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.events, '#');
  await tap.consume(queue, (msg) => {
    if (!msg) return;
    const json: unknown = JSON.parse(msg.content.toString());
    // One event, or a batch of the events one write stored (its message id the batch's own).
    const parsed = BrokerEventMessageSchema.safeParse(json);
    if (parsed.success && parsed.data.id === msg.properties.messageId) {
      events.push(...brokerEventsOf(parsed.data));
    } else invalidEvents.push(json);
    tap.ack(msg);
  });

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
    async restartMessaging(env = {}) {
      const { config, port } = stack.messaging;
      await stack.messaging.stop();
      stack.messaging = await startMessaging({ ...config, PORT: port, ...env });
    },
    publicUrl: inbound.url,
    simulator,
    simulatorUrl,
    contacts,
    internalSecret,
    amqpUrl: vhost.url,
    dbPrefix,
    events,
    invalidEvents,
    async newOrganization(plan: Plan = 'standard', name = 'Messaging Co') {
      const organization = actingOrganization(plan);
      const provisioned = await internalCall('POST', '/internal/channels', {
        company_id: organization.company_id,
        name,
      });
      if (provisioned.status !== 200) {
        throw new Error(`provisioning a channel failed: ${JSON.stringify(provisioned.body)}`);
      }
      const { channel } = ProvisionChannelResponseSchema.parse(provisioned.body);
      const owners = { messaging: running.url, contacts: contacts.url };
      return {
        created: {
          organization: {
            ...organization,
            name,
            plan_started_at: organization.plan_started_at.toISOString(),
          },
          channel,
        },
        company_id: organization.company_id,
        api: apiClient(owners, internalSecret, organization),
        asUser: (user) => apiClient(owners, internalSecret, organization, user),
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
    messagingInternal: (path, body) => internalCall('POST', path, body),
    messagingAdmin: internalCall,
    publish,
    stop: () =>
      stopInOrder(
        () => amqp.close(),
        // The messaging running now: a test may have started it again.
        () => stack.messaging.stop(),
        () => inbound.stop(),
        () => simulator.stop(),
        () => contacts.stop(),
        () => dropDatabasesWithPrefix(dbPrefix),
        () => vhost.drop(),
      ),
  };
}

/**
 * Inbound's part, played at the public URL the channels' `inbound_url` points at: it answers the
 * provider's callback check, and each webhook the simulator posts becomes the broker messages
 * inbound publishes for it, one per change and kind, with the id inbound gives them. The
 * signature is inbound's business, not checked here.
 */
async function startInboundStandIn(
  channelOf: (token: string) => Promise<{ company_id: number; verify_token: string } | null>,
  publish: MessagingSystem['publish'],
): Promise<{ url: string; stop(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://stand-in');
        const token = /^\/webhook\/svc\/receive\/([^/]+)$/.exec(url.pathname)?.[1];
        const channel = token ? await channelOf(token) : null;
        if (!channel) return res.writeHead(404).end();
        if (req.method === 'GET') {
          // The provider's callback check when the channel is registered: echo its challenge.
          const verified = url.searchParams.get('hub.verify_token') === channel.verify_token;
          if (!verified) return res.writeHead(403).end();
          return res.writeHead(200).end(url.searchParams.get('hub.challenge') ?? '');
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const inboundEventId = createHash('sha256').update(raw).digest('hex');
        const body = ProviderWebhookSchema.parse(JSON.parse(raw));
        for (const [e, entry] of body.entry.entries()) {
          for (const [c, change] of entry.changes.entries()) {
            for (const { routingKey, value } of routeProviderChange(change.field, change.value)) {
              const message = ProviderEventMessageSchema.parse({
                id: `${inboundEventId}:${e}:${c}:${routingKey}`,
                company_id: channel.company_id,
                inbound_event_id: inboundEventId,
                waba_id: entry.id,
                field: change.field,
                value,
                received_at: new Date().toISOString(),
              });
              await publish(EXCHANGES.provider, routingKey, message, message.id);
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"status":"success"}');
      })().catch(() => res.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
