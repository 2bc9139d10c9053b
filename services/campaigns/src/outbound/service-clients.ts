import {
  AudienceCountResponseSchema,
  AudiencePageResponseSchema,
  CONTACTS_INTERNAL_PATHS,
  InternalUpdateContactResponseSchema,
  ContactsByIdsResponseSchema,
  HoldMessageQuotaResponseSchema,
  MESSAGING_INTERNAL_PATHS,
  MessagesResponseSchema,
  ReserveMessageQuotaResponseSchema,
  ResolveContactResponseSchema,
  SendMessageResponseSchema,
  orgHeaders,
  type Audience,
  type Contact,
  type MessageView,
  type InternalUpdateContactRequestInput,
  type HoldMessageQuotaRequest,
  type NeedsHumanRequest,
  type OrgContext,
  type ReleaseMessageQuotaRequest,
  type ReserveMessageQuotaRequest,
} from '@switchboard/contracts';
import { AppError, createInternalClient, type Logger } from '@switchboard/service-kit';

export interface ServiceClientOptions {
  contactsUrl: string;
  messagingUrl: string;
  internalSecret: string;
  logger: Logger;
  /** A synchronous send may retry the provider for a while (messaging's own budget). */
  sendTimeoutMs: number;
}

/** Whose month a quota call counts in: the organization and its plan's start. */
const quotaOwner = (organization: OrgContext) => ({
  company_id: organization.company_id,
  plan: organization.plan,
  plan_started_at: organization.plan_started_at.toISOString(),
});

/** What campaigns asks of contacts and messaging over their internal HTTP APIs. */
export function createServiceClients(options: ServiceClientOptions) {
  const contacts = createInternalClient({
    service: 'contacts',
    baseURL: options.contactsUrl,
    internalSecret: options.internalSecret,
    logger: options.logger,
  });
  const messaging = createInternalClient({
    service: 'messaging',
    baseURL: options.messagingUrl,
    internalSecret: options.internalSecret,
    logger: options.logger,
    timeoutMs: options.sendTimeoutMs,
  });

  async function releaseQuota(request: ReleaseMessageQuotaRequest): Promise<void> {
    const answer = await messaging.post(MESSAGING_INTERNAL_PATHS.releaseQuota, request);
    if (answer.status !== 200) throw messaging.refusal(answer);
  }

  return {
    async audienceCount(company_id: number, audience: Audience): Promise<number> {
      const answer = await contacts.post(CONTACTS_INTERNAL_PATHS.audienceCount, {
        company_id,
        audience,
      });
      if (answer.status !== 200) throw contacts.refusal(answer);
      return AudienceCountResponseSchema.parse(answer.data).total;
    },

    async audiencePage(
      company_id: number,
      audience: Audience,
      after_id: number,
      limit: number,
    ): Promise<{ contacts: Contact[]; next_after_id: number | null }> {
      const answer = await contacts.post(CONTACTS_INTERNAL_PATHS.audience, {
        company_id,
        audience,
        after_id,
        limit,
      });
      if (answer.status !== 200) throw contacts.refusal(answer);
      return AudiencePageResponseSchema.parse(answer.data);
    },

    /** One contact of the organization, or null when there is none (deleted meanwhile). */
    async contactById(company_id: number, id: number): Promise<Contact | null> {
      const answer = await contacts.post(CONTACTS_INTERNAL_PATHS.byIds, { company_id, ids: [id] });
      if (answer.status !== 200) throw contacts.refusal(answer);
      return ContactsByIdsResponseSchema.parse(answer.data).contacts[0] ?? null;
    },

    /** The contact with this phone, created within the organization's contact quota when new. */
    async resolve(organization: OrgContext, phone: string): Promise<Contact> {
      const answer = await contacts.post(
        CONTACTS_INTERNAL_PATHS.resolve,
        { company_id: organization.company_id, phone, enforce_quota: true },
        orgHeaders(organization),
      );
      if (answer.status !== 200 && answer.status !== 201) throw contacts.refusal(answer);
      return ResolveContactResponseSchema.parse(answer.data).contact;
    },

    /** Changes a contact's fields, custom fields and groups (a flow's steps); 4xx: refused. */
    async updateContact(
      company_id: number,
      id: number,
      changes: Omit<InternalUpdateContactRequestInput, 'company_id' | 'id'>,
    ): Promise<Contact> {
      const answer = await contacts.post(CONTACTS_INTERNAL_PATHS.update, {
        company_id,
        id,
        ...changes,
      });
      if (answer.status !== 200) throw contacts.refusal(answer);
      return InternalUpdateContactResponseSchema.parse(answer.data).contact;
    },

    /**
     * Holds `count` messages of this month for the organization, all or none; a named
     * reservation asked again holds nothing more.
     */
    async reserveMessages(
      organization: OrgContext,
      count: number,
      reservation_id?: string,
    ): Promise<string> {
      const answer = await messaging.post(MESSAGING_INTERNAL_PATHS.reserveQuota, {
        ...quotaOwner(organization),
        count,
        ...(reservation_id ? { reservation_id } : {}),
      } satisfies ReserveMessageQuotaRequest);
      if (answer.status !== 200) throw messaging.refusal(answer);
      return ReserveMessageQuotaResponseSchema.parse(answer.data).month;
    },

    /**
     * A hand-over: the contact's conversation waits for a person. False when the contact has no
     * conversation (nothing to flag); a transient failure throws, so the turn is tried again.
     */
    async markNeedsHuman(company_id: number, contact_id: number): Promise<boolean> {
      const answer = await messaging.post(MESSAGING_INTERNAL_PATHS.needsHuman, {
        company_id,
        contact_id,
      } satisfies NeedsHumanRequest);
      if (answer.status === 404) return false;
      if (answer.status !== 200) throw messaging.refusal(answer);
      return true;
    },

    /**
     * Holds one message's place of this month under `hold_id`, for the command that will name
     * it; answers the month. Asked again under the name, nothing more is taken.
     */
    async holdMessage(organization: OrgContext, hold_id: string): Promise<string> {
      const answer = await messaging.post(MESSAGING_INTERNAL_PATHS.holdQuota, {
        ...quotaOwner(organization),
        hold_id,
      } satisfies HoldMessageQuotaRequest);
      if (answer.status !== 200) throw messaging.refusal(answer);
      return HoldMessageQuotaResponseSchema.parse(answer.data).month;
    },

    async releaseMessages(company_id: number, month: string, count: number): Promise<void> {
      if (count > 0) await releaseQuota({ company_id, month, count });
    },

    /** Gives a named reservation back whole; nothing when it was never made or is given back. */
    async releaseReservation(
      company_id: number,
      month: string,
      reservation_id: string,
    ): Promise<void> {
      await releaseQuota({ company_id, month, reservation_id });
    },

    /**
     * Sends one message now through messaging's own operation (`sendMessageToPhoneNumber` or
     * `sendtemplatemessage`), as the organization; its answer, success or refusal, is passed on.
     */
    async send(
      organization: OrgContext,
      operation: 'sendMessageToPhoneNumber' | 'sendtemplatemessage',
      body: Record<string, unknown>,
      headers: Record<string, string> = {},
    ): Promise<{ message_id: number; message_wamid: string }> {
      const answer = await messaging.post(`/api/svc/${operation}`, body, {
        ...orgHeaders(organization),
        ...headers,
      });
      if (answer.status === 200) return SendMessageResponseSchema.parse(answer.data);
      const refused = (answer.data ?? {}) as { message?: string };
      if (answer.status >= 400 && answer.status < 500) throw messaging.refusal(answer);
      throw new AppError('provider_error', refused.message ?? 'The message was not sent', {
        httpStatus: answer.status >= 500 && answer.status < 600 ? answer.status : 502,
      });
    },

    /**
     * A contact's latest `limit` messages, newest first, through messaging's own `getMessages`
     * as the organization; with `before_id` only those with a smaller id.
     */
    async recentMessages(
      organization: OrgContext,
      contact_id: number,
      limit: number,
      before_id?: number,
    ): Promise<MessageView[]> {
      const query = new URLSearchParams({ contact_id: String(contact_id), limit: String(limit) });
      if (before_id !== undefined) query.set('before_id', String(before_id));
      const answer = await messaging.get(`/api/svc/getMessages?${query}`, orgHeaders(organization));
      if (answer.status !== 200) throw messaging.refusal(answer);
      return MessagesResponseSchema.parse(answer.data).messages;
    },

    shutdown(): void {
      contacts.shutdown();
      messaging.shutdown();
    },
  };
}

export type ServiceClients = ReturnType<typeof createServiceClients>;
