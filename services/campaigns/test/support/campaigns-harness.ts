import { randomUUID } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import {
  AudienceCountRequestSchema,
  BrokerEventMessageSchema,
  BrokerEventSchema,
  brokerEventsOf,
  CAMPAIGN_ID_HEADER,
  AudienceCountResponseSchema,
  AudiencePageRequestSchema,
  AudiencePageResponseSchema,
  CONTACTS_INTERNAL_PATHS,
  ContactsByIdsRequestSchema,
  ContactsByIdsResponseSchema,
  EXCHANGES,
  eventRoutingKey,
  HoldMessageQuotaRequestSchema,
  HoldMessageQuotaResponseSchema,
  InternalUpdateContactRequestSchema,
  InternalUpdateContactResponseSchema,
  MESSAGING_INTERNAL_PATHS,
  MESSAGING_OPERATIONS,
  MessagingSendCommandSchema,
  NeedsHumanRequestSchema,
  OrgContextSchema,
  OrganizationResponseSchema,
  ROUTING_KEYS,
  ReleaseMessageQuotaRequestSchema,
  ReleaseMessageQuotaResponseSchema,
  ReserveMessageQuotaRequestSchema,
  ReserveMessageQuotaResponseSchema,
  ResolveContactRequestSchema,
  ResolveContactResponseSchema,
  type AudiencePageRequest,
  type BrokerEvent,
  type Contact,
  type ContactsByIdsRequest,
  type HoldMessageQuotaRequest,
  type InternalUpdateContactRequest,
  type MessageView,
  type MessagingSendCommand,
  type Plan,
  type ReleaseMessageQuotaRequest,
  type ReserveMessageQuotaRequest,
  type ResolveContactRequest,
} from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import { z } from 'zod';
import {
  createContractStub,
  operationRoute,
  stopInOrder,
  stubRoute,
  type ContractStub,
} from '../../../../test/support/contract-stub';
import {
  actingOrganization,
  forwardedClient,
  type ActingOrganization,
  type ForwardedClient,
} from '../../../../test/support/forwarded-client';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  randomSecret,
  uniquePrefix,
} from '../../../../test/support/test-infra';
import { campaignsConfigSchema, type CampaignsConfig } from '../../src/config';
import { startService as startCampaigns, type StartOptions } from '../../src/start-service';
export { sleep, uniquePhone, waitFor } from '../../../../test/support/polling';

/** An organization as campaigns meets it: the headers the gateway forwards, and its calls. */
export interface Organization {
  company_id: number;
  name: string;
  organization: ActingOrganization;
  /** Campaigns' public operations, called as the gateway forwards a customer's call. */
  api: CampaignsApi;
}

/** A forwarded client of campaigns, with `post` for the operations' usual method. */
export type CampaignsApi = ForwardedClient & {
  post(
    operation: string,
    body: Record<string, unknown>,
    headers?: Record<string, string>,
  ): ReturnType<ForwardedClient['send']>;
};

export type StoredContact = Contact & { company_id: number };

/** Contacts as campaigns meets it, kept in memory: campaigns' audiences and flows' changes. */
export interface ContactsStub extends ContractStub {
  contacts: StoredContact[];
  /** A contact of the organization, as contacts would hold it. */
  add(company_id: number, fields: Partial<Contact> & { phone: string }): Contact;
}

/**
 * Messaging as campaigns meets it: its internal quota API (places held per organization), the
 * hand-over route, and `getMessages` over the conversations the test writes into it.
 */
export interface MessagingStub extends ContractStub {
  /** The messages of this phone's conversations, oldest first. */
  messagesTo(phone: string): MessageView[];
  /** A message of a contact's conversation, as messaging would store and list it. */
  record(
    company_id: number,
    contact: Pick<Contact, 'id' | 'phone'>,
    direction: MessageView['direction'],
    text: string,
  ): MessageView;
  /**
   * What the provider reports of the organization's messages from now on, as messaging relays
   * it (`message_status_updated`); sent, delivered and read by default.
   */
  reportStatuses(company_id: number, statuses: ('sent' | 'delivered' | 'read')[]): void;
  /** The provider refuses the next message to this phone: `message_failed`. */
  failNext(phone: string): void;
  /** Places held now, per organization (reservations, holds and counts, less those released). */
  held(company_id: number): number;
  /** From now on the organization's quota has room for this many more places. */
  setRoom(company_id: number, room: number): void;
}

export interface CampaignsSystem {
  campaigns: RunningService<CampaignsConfig>;
  contacts: ContactsStub;
  messaging: MessagingStub;
  gateway: ContractStub;
  internalSecret: string;
  amqpUrl: string;
  /** Every `messaging.send` command campaigns published, checked against its contract. */
  commands: MessagingSendCommand[];
  /** Commands that did not validate (should stay empty; `stop` fails when any arrived). */
  invalidCommands: unknown[];
  /** Every event on `svc.events` (campaigns' and messaging's), in arrival order. */
  events: BrokerEvent[];
  /** Events that did not validate against `BrokerEventSchema` (`stop` fails when any arrived). */
  invalidEvents: unknown[];
  /** Every event published as messaging (`message_received`, `message_sent`…). */
  published: BrokerEvent[];
  newOrganization(plan?: Plan, name?: string): Promise<Organization>;
  /**
   * An end user writes to the organization, as messaging tells of it: the contact (made at
   * contacts when new), the message in its conversation, and `message_received` on the broker.
   */
  customerWrites(
    org: Organization,
    phone: string,
    text: string,
    options?: WriteOptions,
  ): Promise<MessageReceived>;
  /** Publishes an event on `svc.events` as messaging would (checked against its contract). */
  publishEvent(event: BrokerEvent): Promise<void>;
  /** Customers' messages received together: their `message_received` in one batch message. */
  customersWriteTogether(
    org: Organization,
    writes: { phone: string; text: string }[],
  ): Promise<MessageReceived[]>;
  /**
   * From now on, messaging's stub tells each message's outcomes as one batch message, as
   * messaging's relay publishes the outcomes one write stored (`false`: one message each).
   */
  outcomesInBatches(on: boolean): void;
  /**
   * The texts messaging would send this phone for the commands campaigns handed it, in order: a
   * command's chained message after it, and a command repeated under its idempotency key once.
   */
  answersTo(org: Organization, phone: string): string[];
  stop(): Promise<void>;
}

export type MessageReceived = Extract<BrokerEvent, { event: 'message_received' }>;

/** How a message arrives, beyond its text, as messaging describes it in `message_received`. */
export interface WriteOptions {
  /** The contact's name when new (the WhatsApp profile name); "Test User" by default. */
  name?: string;
  /** The provider's message type (`interactive` for a tapped button, `image`…); text by default. */
  message_type?: string;
  /** A tapped button's or list row's id (`text` is then its title). */
  reply_id?: string;
  /** From the business's own number. */
  echo?: true;
}

const campaignsApi = (client: ForwardedClient): CampaignsApi => ({
  ...client,
  post: (operation, body, headers = {}) => client.send('POST', operation, body, headers),
});

/**
 * Every service answers `/readyz` (the service kit's): a client whose breaker opened while the
 * neighbour was down asks it, and closes the breaker when it answers 200.
 */
const readiness = stubRoute(
  {
    method: 'get',
    path: '/readyz',
    responses: {
      200: z.object({ status: z.literal('ok'), checks: z.record(z.string(), z.boolean()) }),
    },
  },
  () => ({ status: 200, body: { status: 'ok', checks: {} } }),
);

/** Messaging sends once per organization and idempotency key, however often a command comes. */
export const sentOnce = (commands: MessagingSendCommand[]) =>
  commands.filter(
    (command, index) =>
      commands.findIndex(
        (first) =>
          first.company_id === command.company_id &&
          first.idempotency_key === command.idempotency_key,
      ) === index,
  );

/** The texts of these commands for one phone of an organization. */
export function textsOf(
  commands: MessagingSendCommand[],
  known: StoredContact[],
  company_id: number,
  phone: string,
): string[] {
  return commands
    .filter((command) => {
      if (command.company_id !== company_id) return false;
      const contact = known.find((c) => c.company_id === company_id && c.id === command.contact_id);
      return command.phone === phone || contact?.phone === phone;
    })
    .flatMap((command) => [command.content, ...(command.then ? [command.then.content] : [])])
    .map((content) => (content.type === 'text' ? content.message : `[${content.type}]`));
}

const month = () => new Date().toISOString().slice(0, 7);
const route = <Body, Answer>(path: string, body: Body, answer: Answer) =>
  ({
    method: 'post',
    path,
    request: { body },
    responses: { 200: answer, 201: answer },
  }) as const;

async function startContactsStub(): Promise<ContactsStub> {
  const contacts: StoredContact[] = [];
  let nextGroupId = 0;
  const shown = ({ company_id: _company, ...contact }: StoredContact): Contact => contact;
  const add: ContactsStub['add'] = (company_id, fields) => {
    const now = new Date().toISOString();
    const contact: StoredContact = {
      id: contacts.length + 1,
      name: fields.phone,
      email: null,
      language: null,
      subscription: 'subscribed',
      groups: [],
      custom: {},
      ai_bot_enabled: false,
      created_at: now,
      updated_at: now,
      ...fields,
      company_id,
    };
    contacts.push(contact);
    return shown(contact);
  };
  const audience = ({ company_id, audience, include_unsubscribed }: AudiencePageRequest) =>
    contacts.filter(
      (contact) =>
        contact.company_id === company_id &&
        (include_unsubscribed || contact.subscription === 'subscribed') &&
        (audience.type === 'all' ||
          (audience.type === 'groups' &&
            contact.groups.some((group) => audience.group_ids.includes(group.id))) ||
          (audience.type === 'contacts' && audience.contact_ids.includes(contact.id))),
    );
  const stub = await createContractStub('contacts', [
    readiness,
    stubRoute(
      route(
        CONTACTS_INTERNAL_PATHS.resolve,
        ResolveContactRequestSchema,
        ResolveContactResponseSchema,
      ),
      ({ body }) => {
        const { company_id, phone, name } = body as ResolveContactRequest;
        const digits = String(phone).replace(/\D/g, '');
        const known = contacts.find((c) => c.company_id === company_id && c.phone === digits);
        const contact = known
          ? shown(known)
          : add(company_id, { phone: digits, name: String(name ?? digits) });
        return { status: 200, body: { status: 'success', contact, created: !known } };
      },
    ),
    stubRoute(
      route(CONTACTS_INTERNAL_PATHS.byIds, ContactsByIdsRequestSchema, ContactsByIdsResponseSchema),
      ({ body }) => {
        const { company_id, ids } = body as ContactsByIdsRequest;
        const found = contacts.filter((c) => c.company_id === company_id && ids.includes(c.id));
        return { status: 200, body: { status: 'success', contacts: found.map(shown) } };
      },
    ),
    stubRoute(
      route(
        CONTACTS_INTERNAL_PATHS.audienceCount,
        AudienceCountRequestSchema,
        AudienceCountResponseSchema,
      ),
      ({ body }) => ({
        status: 200,
        body: {
          status: 'success',
          total: audience(AudiencePageRequestSchema.parse(body) as AudiencePageRequest).length,
        },
      }),
    ),
    stubRoute(
      route(
        CONTACTS_INTERNAL_PATHS.audience,
        AudiencePageRequestSchema,
        AudiencePageResponseSchema,
      ),
      ({ body }) => {
        const request = AudiencePageRequestSchema.parse(body);
        const after = audience(request).filter((c) => c.id > request.after_id);
        const page = after.slice(0, request.limit);
        const last = page.at(-1);
        return {
          status: 200,
          body: {
            status: 'success',
            contacts: page.map(shown),
            next_after_id: after.length > page.length && last ? last.id : null,
          },
        };
      },
    ),
    stubRoute(
      // Contacts checks the values a flow saves as its public operations do: a refusal is its
      // 422 naming the field, part of its contract, not a broken request.
      {
        method: 'post',
        path: CONTACTS_INTERNAL_PATHS.update,
        responses: { 200: InternalUpdateContactResponseSchema },
      },
      ({ body }) => {
        const checked = InternalUpdateContactRequestSchema.safeParse(body);
        if (!checked.success) {
          const issue = checked.error.issues[0]!;
          return {
            status: 422,
            body: {
              status: 'error',
              code: 'validation_failed',
              message: `${issue.path.join('.')}: ${issue.message}`,
            },
          };
        }
        const request: InternalUpdateContactRequest = checked.data;
        const contact = contacts.find(
          (c) => c.company_id === request.company_id && c.id === request.id,
        );
        const groupIds = (request.groups ?? []).flatMap((ref) => ('id' in ref ? [ref.id] : []));
        const owned = contacts
          .filter((c) => c.company_id === request.company_id)
          .flatMap((c) => c.groups);
        if (!contact || groupIds.some((id) => !owned.some((group) => group.id === id))) {
          return {
            status: 404,
            body: { status: 'error', code: 'not_found', message: 'Contact or group not found' },
          };
        }
        for (const field of ['name', 'email', 'language', 'subscription'] as const) {
          const value = request[field];
          if (value !== undefined) Object.assign(contact, { [field]: value });
        }
        for (const [key, value] of Object.entries(request.custom ?? {})) {
          if (value === null) delete contact.custom[key];
          else contact.custom[key] = String(value);
        }
        for (const ref of request.groups ?? []) {
          const group =
            'id' in ref
              ? owned.find((known) => known.id === ref.id)!
              : (owned.find((known) => known.name.toLowerCase() === ref.name.toLowerCase()) ?? {
                  id: (nextGroupId += 1),
                  name: ref.name,
                });
          if (!contact.groups.some((known) => known.id === group.id)) contact.groups.push(group);
        }
        contact.updated_at = new Date().toISOString();
        return { status: 200, body: { status: 'success', contact: shown(contact) } };
      },
    ),
  ]);
  return { ...stub, contacts, add };
}

/** What messaging tells of a message it sent (or the provider refused), on the broker. */
type SentHook = (
  company_id: number,
  contact: Pick<Contact, 'id' | 'phone'>,
  message: MessageView,
  campaign_id: number | undefined,
) => Promise<void>;

const operation = (operationId: string) =>
  operationRoute(MESSAGING_OPERATIONS.find((candidate) => candidate.operationId === operationId)!);

async function startMessagingStub(
  contacts: ContactsStub,
  sent: SentHook,
): Promise<Omit<MessagingStub, 'reportStatuses' | 'failNext'>> {
  const messages: (MessageView & { company_id: number })[] = [];
  const record: MessagingStub['record'] = (company_id, contact, direction, text) => {
    const id = messages.length + 1;
    const at = new Date().toISOString();
    const view: MessageView = {
      message_id: id,
      message_wamid: `wamid.stub${id}`,
      contact_id: contact.id,
      id,
      wamid: `wamid.stub${id}`,
      phone: contact.phone,
      direction,
      type: 'text',
      message: text,
      status: direction === 'inbound' ? 'received' : 'sent',
      error: null,
      campaign_id: null,
      sent_by_agent_id: null,
      created_at: at,
      status_times: {
        sent: direction === 'inbound' ? null : at,
        delivered: null,
        read: null,
        failed: null,
      },
    };
    messages.push({ ...view, company_id });
    return view;
  };
  const held = new Map<number, number>();
  const room = new Map<number, number>();
  const reservations = new Map<string, number>();
  const holds = new Set<string>();
  const take = (company_id: number, count: number) => {
    const now = held.get(company_id) ?? 0;
    if (count > (room.get(company_id) ?? Infinity) - now) return false;
    held.set(company_id, now + count);
    return true;
  };
  const full = {
    status: 429,
    body: { status: 'error', code: 'quota_exceeded', message: 'You have exceeded the limit' },
  };
  const stub = await createContractStub('messaging', [
    readiness,
    stubRoute(
      route(
        MESSAGING_INTERNAL_PATHS.reserveQuota,
        ReserveMessageQuotaRequestSchema,
        ReserveMessageQuotaResponseSchema,
      ),
      ({ body }) => {
        const { company_id, count, reservation_id } = body as ReserveMessageQuotaRequest;
        const key = reservation_id && `${company_id}:${reservation_id}`;
        if (!(key && reservations.has(key))) {
          if (!take(company_id, count)) return full;
          if (key) reservations.set(key, count);
        }
        return { status: 200, body: { status: 'success', month: month(), reserved: count } };
      },
    ),
    stubRoute(
      route(
        MESSAGING_INTERNAL_PATHS.holdQuota,
        HoldMessageQuotaRequestSchema,
        HoldMessageQuotaResponseSchema,
      ),
      ({ body }) => {
        const { company_id, hold_id } = body as HoldMessageQuotaRequest;
        const key = `${company_id}:${hold_id}`;
        if (!holds.has(key)) {
          if (!take(company_id, 1)) return full;
          holds.add(key);
        }
        return { status: 200, body: { status: 'success', month: month() } };
      },
    ),
    stubRoute(
      route(
        MESSAGING_INTERNAL_PATHS.releaseQuota,
        ReleaseMessageQuotaRequestSchema,
        ReleaseMessageQuotaResponseSchema,
      ),
      ({ body }) => {
        const request = body as ReleaseMessageQuotaRequest;
        const key = request.reservation_id && `${request.company_id}:${request.reservation_id}`;
        const released = key ? (reservations.get(key) ?? 0) : (request.count ?? 0);
        if (key) reservations.delete(key);
        held.set(request.company_id, (held.get(request.company_id) ?? 0) - released);
        return { status: 200, body: { status: 'success', month: request.month, released } };
      },
    ),
    stubRoute(
      {
        method: 'post',
        path: MESSAGING_INTERNAL_PATHS.needsHuman,
        request: { body: NeedsHumanRequestSchema },
        responses: {},
      },
      () => ({ status: 404, body: { status: 'error', message: 'No conversation' } }),
    ),
    ...['sendMessageToPhoneNumber', 'sendtemplatemessage'].map((operationId) =>
      // A send now, as messaging's own operation: the contact resolved at contacts, the message
      // stored and, once the provider took it, told of on the broker.
      stubRoute(operation(operationId), async ({ body, headers }) => {
        const { company_id } = OrgContextSchema.parse(headers);
        const phone = String((body as { phone: string }).phone).replace(/\D/g, '');
        const contact =
          contacts.contacts.find((c) => c.company_id === company_id && c.phone === phone) ??
          contacts.add(company_id, { phone });
        const text =
          operationId === 'sendtemplatemessage'
            ? `[template ${String((body as { template_name: string }).template_name)}]`
            : String((body as { message: string }).message);
        const view = record(company_id, contact, 'outbound', text);
        const campaign = headers[CAMPAIGN_ID_HEADER];
        await sent(company_id, contact, view, campaign ? Number(campaign) : undefined);
        return {
          status: 200,
          body: {
            status: 'success',
            message_id: view.message_id,
            message_wamid: view.message_wamid,
          },
        };
      }),
    ),
    stubRoute(operation('getMessages'), ({ query, headers }) => {
      const { company_id } = OrgContextSchema.parse(headers);
      const limit = Number(query.limit ?? 20);
      const before = query.before_id === undefined ? Infinity : Number(query.before_id);
      const found = messages
        .filter(
          (m) =>
            m.company_id === company_id &&
            m.contact_id === Number(query.contact_id) &&
            m.message_id < before,
        )
        .reverse();
      const page = found.slice(0, limit);
      return {
        status: 200,
        body: {
          status: 'success',
          messages: page.map(({ company_id: _company, ...view }) => view),
          meta: { total: found.length, page: 1, per_page: limit, next_page: null },
          next_before_id: found.length > page.length ? page.at(-1)!.message_id : null,
        },
      };
    }),
  ]);
  return {
    ...stub,
    messagesTo: (phone) =>
      messages.filter((m) => m.phone === phone).map(({ company_id: _company, ...view }) => view),
    record,
    held: (company_id) => held.get(company_id) ?? 0,
    setRoom: (company_id, places) => room.set(company_id, (held.get(company_id) ?? 0) + places),
  };
}

/**
 * Campaigns alone, in-process on a database prefix and a vhost of its own, with its neighbours
 * as contract stubs: the gateway (organizations), contacts (audiences, contacts by id or phone,
 * a flow's changes) and messaging's internal quota API. What campaigns hands messaging to send
 * is read off the real broker: every `messaging.send` command, checked against its contract.
 * Organizations are made the way the gateway states them: trusted headers and the gateway's
 * answer about them.
 */
export async function startCampaignsSystem(
  label: string,
  options: {
    campaignsEnv?: Record<string, string>;
    campaignsOptions?: StartOptions;
    /**
     * Messaging's answer to each command (default: sent, as `message_sent` once the provider
     * took it); `false` leaves the command unanswered, as a messaging that is down.
     */
    messagingSends?: boolean;
  } = {},
): Promise<CampaignsSystem> {
  const dbPrefix = uniquePrefix(label);
  const vhost = await isolatedAmqpUrl(label);
  const internalSecret = randomSecret();
  const organizations = new Map<number, { name: string; organization: ActingOrganization }>();
  const gateway = await createContractStub('gateway', [
    readiness,
    stubRoute(
      {
        method: 'get',
        path: '/internal/organizations/{company_id}',
        responses: { 200: OrganizationResponseSchema },
      },
      ({ params }) => {
        const known = organizations.get(Number(params.company_id));
        if (!known) {
          return { status: 404, body: { status: 'error', message: 'Organization not found' } };
        }
        const { name, organization } = known;
        return {
          status: 200,
          body: {
            status: 'success',
            organization: {
              company_id: organization.company_id,
              name,
              plan: organization.plan,
              plan_started_at: organization.plan_started_at.toISOString(),
            },
          },
        };
      },
    ),
  ]);
  // Messaging's side of the broker: what it publishes on `svc.events`, checked against contracts.
  const published: BrokerEvent[] = [];
  const amqp: ChannelModel = await connect(vhost.url);
  const publisher = await amqp.createConfirmChannel();
  const publishEvent = async (event: BrokerEvent) => {
    const checked = BrokerEventSchema.parse(event);
    published.push(checked);
    const key = eventRoutingKey(checked);
    publisher.publish(EXCHANGES.events, key, Buffer.from(JSON.stringify(checked)), {
      messageId: checked.id,
      persistent: true,
      contentType: 'application/json',
    });
    await publisher.waitForConfirms();
  };
  /** Events as messaging's relay publishes those one write stored: one batch message. */
  const publishBatch = async (events: BrokerEvent[]) => {
    const checked = events.map((event) => BrokerEventSchema.parse(event));
    published.push(...checked);
    const id = randomUUID();
    const batch = Buffer.from(JSON.stringify({ id, events: checked }));
    publisher.publish(EXCHANGES.events, eventRoutingKey(checked[0]!), batch, {
      messageId: id,
      persistent: true,
      contentType: 'application/json',
    });
    await publisher.waitForConfirms();
  };
  let inBatches = false;
  /** A message's outcomes as messaging publishes them: one batch message, or one message each. */
  const publishOutcomes = async (events: BrokerEvent[]) => {
    if (inBatches && events.length > 1) return publishBatch(events);
    for (const event of events) await publishEvent(event);
  };
  const statuses = new Map<number, ('sent' | 'delivered' | 'read')[]>();
  const failing = new Set<string>();
  /** Messaging's events about one message it sent: sent, then each status the provider reports. */
  const tell: SentHook = async (company_id, contact, message, campaign_id) => {
    const envelope = () => ({
      id: randomUUID(),
      timestamp: new Date().toISOString(),
      company_id,
      ...(campaign_id ? { campaign_id } : {}),
    });
    const about = { message_id: message.message_id, contact_id: contact.id, company_id };
    if (failing.delete(contact.phone)) {
      await publishEvent({
        ...envelope(),
        event: 'message_failed',
        data: { ...about, phone: contact.phone, error: '131026: Message undeliverable' },
      });
      return;
    }
    const wamid = message.message_wamid!;
    await publishOutcomes([
      {
        ...envelope(),
        event: 'message_sent',
        data: { ...about, message_wamid: wamid, phone: contact.phone },
      },
      ...(statuses.get(company_id) ?? ['sent', 'delivered', 'read']).map((status): BrokerEvent => ({
        ...envelope(),
        event: 'message_status_updated',
        data: { ...about, message_wamid: wamid, status, error: null },
      })),
    ]);
  };
  const contacts = await startContactsStub();
  const messaging: MessagingStub = {
    ...(await startMessagingStub(contacts, (...args) => tell(...args))),
    reportStatuses: (company_id, reported) => statuses.set(company_id, reported),
    failNext: (phone) => failing.add(phone),
  };

  const campaigns = await startCampaigns(
    campaignsConfigSchema.parse({
      MONGODB_URL,
      MONGODB_DB_PREFIX: dbPrefix,
      AMQP_URL: vhost.url,
      INTERNAL_API_SECRET: internalSecret,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      PORT: '0',
      MESSAGING_URL: messaging.url,
      CONTACTS_URL: contacts.url,
      GATEWAY_URL: gateway.url,
      SCHEDULER_INTERVAL_MS: '200',
      EVENT_RELAY_SWEEP_MS: '200',
      EVENT_RELAY_GRACE_MS: '300',
      ...options.campaignsEnv,
    }),
    options.campaignsOptions,
  );

  // Messaging's side of the command exchange: a queue of the test's own bound as messaging's is.
  // Each command that keeps to its contract is "sent" as messaging would: a message in the
  // contact's conversation and its events on the broker.
  const commands: MessagingSendCommand[] = [];
  const invalidCommands: unknown[] = [];
  /** Sends messaging is still telling of; awaited before the broker connection closes. */
  const inFlight = new Set<Promise<void>>();
  const sendAsMessaging = async (command: MessagingSendCommand) => {
    const contact =
      (command.contact_id &&
        contacts.contacts.find(
          (c) => c.company_id === command.company_id && c.id === command.contact_id,
        )) ||
      contacts.add(command.company_id, { phone: command.phone! });
    const [message] = [command.content, ...(command.then ? [command.then.content] : [])].map(
      (content) =>
        messaging.record(
          command.company_id,
          contact,
          'outbound',
          content.type === 'text' ? content.message : `[${content.type}]`,
        ),
    );
    await tell(command.company_id, contact, message!, command.campaign_id);
  };
  const tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.commands, ROUTING_KEYS.commands.send);
  await tap.consume(queue, (msg) => {
    if (!msg) return;
    const json: unknown = JSON.parse(msg.content.toString());
    const parsed = MessagingSendCommandSchema.safeParse(json);
    if (parsed.success && msg.properties.messageId) {
      const repeated = sentOnce([...commands, parsed.data]).length === commands.length;
      commands.push(parsed.data);
      if (options.messagingSends !== false && !repeated) {
        const sending = sendAsMessaging(parsed.data).finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
    } else invalidCommands.push(json);
    tap.ack(msg);
  });
  // Everything on `svc.events` (campaigns' own events and messaging's), checked as it arrives.
  const events: BrokerEvent[] = [];
  const invalidEvents: unknown[] = [];
  const { queue: eventQueue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(eventQueue, EXCHANGES.events, '#');
  await tap.consume(eventQueue, (msg) => {
    if (!msg) return;
    const json: unknown = JSON.parse(msg.content.toString());
    const parsed = BrokerEventMessageSchema.safeParse(json);
    if (parsed.success && parsed.data.id === msg.properties.messageId) {
      events.push(...brokerEventsOf(parsed.data));
    } else invalidEvents.push(json);
    tap.ack(msg);
  });

  /** The `message_received` of a customer's message, recorded as messaging would. */
  const messageReceived = (
    org: Organization,
    phone: string,
    text: string,
    options: WriteOptions = {},
  ): MessageReceived => {
    const { name = 'Test User', message_type = 'text', ...extra } = options;
    const known = contacts.contacts.find(
      (contact) => contact.company_id === org.company_id && contact.phone === phone,
    );
    const contact = known ?? contacts.add(org.company_id, { phone, name });
    const message = messaging.record(org.company_id, contact, 'inbound', text);
    const event: MessageReceived = {
      id: randomUUID(),
      event: 'message_received',
      timestamp: message.created_at,
      company_id: org.company_id,
      ...extra,
      data: {
        message_id: message.message_id,
        message_wamid: message.message_wamid!,
        contact_id: contact.id,
        contact_name: contact.name,
        phone: contact.phone,
        message: text,
        message_type,
        company_id: org.company_id,
      },
    };
    return event;
  };

  return {
    campaigns,
    contacts,
    messaging,
    gateway,
    internalSecret,
    amqpUrl: vhost.url,
    commands,
    invalidCommands,
    events,
    invalidEvents,
    published,
    publishEvent,
    outcomesInBatches: (on) => {
      inBatches = on;
    },
    async customerWrites(org, phone, text, options = {}) {
      const event = messageReceived(org, phone, text, options);
      await publishEvent(event);
      return event;
    },
    async customersWriteTogether(org, writes) {
      const events = writes.map(({ phone, text }) => messageReceived(org, phone, text));
      await publishBatch(events);
      return events;
    },
    answersTo: (org, phone) =>
      textsOf(sentOnce(commands), contacts.contacts, org.company_id, phone),
    async newOrganization(plan: Plan = 'standard', name = 'Campaigns Co') {
      const organization = actingOrganization(plan);
      organizations.set(organization.company_id, { name, organization });
      return {
        company_id: organization.company_id,
        name,
        organization,
        api: campaignsApi(forwardedClient(campaigns.url, internalSecret, organization)),
      };
    },
    async stop() {
      await stopInOrder(
        () => Promise.all(inFlight),
        () => amqp.close().catch(() => undefined),
        () => campaigns.stop(),
        () => gateway.stop(),
        () => contacts.stop(),
        () => messaging.stop(),
        () => dropDatabasesWithPrefix(dbPrefix),
        () => vhost.drop(),
        async () => {
          if (invalidEvents.length > 0) {
            throw new Error(`events that break the contract: ${JSON.stringify(invalidEvents)}`);
          }
          if (invalidCommands.length > 0) {
            throw new Error(
              `campaigns sent commands that break the contract: ${JSON.stringify(invalidCommands)}`,
            );
          }
        },
      );
    },
  };
}
