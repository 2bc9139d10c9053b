import {
  limitFor,
  monthKey,
  quotaExceededMessage,
  type BrokerEvent,
  type OrgContext,
} from '@switchboard/contracts';
import type { EventRelay } from '@switchboard/service-kit';
import { AppError, type Logger } from '@switchboard/service-kit';
import type { ConversationStore } from '../../data-access/conversation-store';
import {
  idempotencyId,
  type IdempotencyRecord,
  type IdempotencyStore,
} from '../../data-access/idempotency-store';
import {
  pendingWamid,
  type MessageStore,
  type StoredMessage,
} from '../../data-access/message-store';
import { messageHold, type QuotaStore } from '../../data-access/quota-store';
import type { HoldSettler } from './hold-settler';
import type { TemplateStore } from '../../data-access/template-store';
import type { CloudApi, MediaUpload } from '../../outbound/cloud-api';
import type { ContactRef, ContactsClient } from '../../outbound/contacts-client';
import type { ChannelDirectory } from '../channel-directory';
import type { KeyedLock } from '../keyed-lock';
import { checkTemplateSendable } from '../templates/check-template-send';
import {
  callbackDataOf,
  messageFailed,
  messageSent,
  messageStatusUpdated,
  type EventIds,
} from '../message-events';
import {
  buildProviderMessage,
  checkLimits,
  previewOf,
  type OutboundContent,
} from './build-provider-message';
import type { ProviderFailure } from '../../outbound/provider-failure';
import { resolveReferences } from './resolve-references';
import { deliverToProvider, type Pacing, type RetryPolicy } from './deliver-to-provider';
import { refuseUnsubscribed } from './refuse-unsubscribed';
import { serviceWindowRefusal } from './service-window';

export interface SendingDeps {
  nextMessageId(): Promise<number>;
  messages: MessageStore;
  conversations: ConversationStore;
  quotas: QuotaStore;
  /** Drops the names of holds whose messages are stored, several per write. */
  holdSettler: Pick<HoldSettler, 'settle'>;
  idempotency: IdempotencyStore;
  templates: Pick<TemplateStore, 'find'>;
  channels: ChannelDirectory;
  cloudApi: CloudApi;
  contacts: ContactsClient;
  relay: EventRelay;
  eventIds: EventIds;
  /** One finalization or status change per message at a time in this process. */
  lock: KeyedLock;
  pacing: Pacing;
  retry: RetryPolicy;
  /** How long a send may run before another attempt may take it over. */
  leaseMs: number;
  logger: Logger;
}

/** A phone to resolve, a contact to look up, or a contact the producer already resolved. */
export type Recipient = { phone: string } | { contact_id: number } | { contact: ContactRef };

/** Content to send, or a file to upload to the provider first and the content that refers to it. */
export type SendBody =
  | { content: OutboundContent }
  | { upload: MediaUpload; contentFor: (mediaId: string) => OutboundContent };

export type SendRequest = SendBody & {
  organization: OrgContext;
  recipient: Recipient;
  idempotency?: { scope: 'api' | 'command'; key: string; fingerprint: string };
  campaign_id?: number;
  /** The organization's number to send from (its phone_number_id); the first number when absent. */
  from_phone_number_id?: string;
  /** The signed-in user (agent) sending from the console. */
  sent_by_agent_id?: number;
  /** The producer already holds this message's quota place, in this month. */
  reservedMonth?: string;
  /** The producer holds this message's place under this hold name (taken over, else reserved). */
  producerHold?: { name: string; month: string };
  /**
   * False for a broker command that has attempts left: a retryable provider failure then gives
   * the send back (SendDeferred) instead of recording it as failed.
   */
  mayFail: boolean;
};

/** The answer to a send, as the API gives it; replayed answers come from the idempotency record. */
export interface SendAnswer {
  http_status: number;
  body: Record<string, unknown>;
  replayed: boolean;
}

/** A send that could not finish now and should be tried again later (a command's broker retry). */
export class SendDeferred extends Error {
  override readonly name = 'SendDeferred';
}

/**
 * What a send interrupted before the provider answered becomes. It is never sent again: the
 * provider has no idempotency key, an acceptance it made would have come back as a `sent` status
 * naming the message within the lease, and a caller who got no answer may have sent it again.
 */
const INTERRUPTED: ProviderFailure = {
  message:
    'The send was interrupted before the provider answered; it is not repeated, so that it can never arrive twice',
  code: null,
  httpStatus: null,
  retryable: false,
  kind: 'unavailable',
};

/** The reason of the conflict answered while another attempt holds the send's lease. */
export const SEND_IN_PROGRESS = 'send_in_progress';

const inProgress = () =>
  new AppError('conflict', 'A request with this Idempotency-Key is still being processed', {
    details: { retry_after_seconds: 1 },
    reason: SEND_IN_PROGRESS,
  });

function failureAnswer(messageId: number, failure: ProviderFailure): SendAnswer {
  const [code, http_status] =
    failure.kind === 'throttled'
      ? (['rate_limited', 429] as const)
      : failure.kind === 'unavailable'
        ? (['dependency_unavailable', 503] as const)
        : failure.httpStatus === 400 || failure.httpStatus === 404
          ? (['provider_error', 422] as const)
          : (['provider_error', 502] as const);
  return {
    http_status,
    body: { status: 'error', message: failure.message, code, message_id: messageId },
    replayed: false,
  };
}

const sentAnswer = (messageId: number, wamid: string): SendAnswer => ({
  http_status: 200,
  body: { status: 'success', message_id: messageId, message_wamid: wamid },
  replayed: false,
});

/** The answer a finished message stands for, when its first answer was never recorded. */
function answerOf(message: StoredMessage): SendAnswer {
  if (message.status === 'failed') {
    return {
      http_status: 502,
      body: {
        status: 'error',
        message: message.error ?? 'The provider refused the message',
        code: 'provider_error',
        message_id: message.id,
      },
      replayed: true,
    };
  }
  return { ...sentAnswer(message.id, message.wamid), replayed: true };
}

/**
 * Sends one message (ARCHITECTURE §5, §9): idempotency key claimed, monthly
 * quota reserved, recipient resolved (a new contact within the contact quota), message stored
 * as pending, provider called (paced and retried), and the outcome stored with its events in one
 * write. A refusal stores the message as failed and gives the quota place back.
 */
export function createSender(deps: SendingDeps) {
  const log = deps.logger.child({ component: 'sender' });

  /**
   * The number a stored message goes out from: the one it names (messages stored before
   * organizations had several numbers name none: the first number's).
   */
  async function channelOf(message: Pick<StoredMessage, 'company_id' | 'phone_number_id'>) {
    const named = message.phone_number_id
      ? await deps.channels.findNumber(message.company_id, message.phone_number_id)
      : null;
    return named ?? deps.channels.sender(message.company_id, undefined);
  }

  async function recipientOf(request: SendRequest): Promise<ContactRef> {
    if ('contact' in request.recipient) return request.recipient.contact;
    if ('phone' in request.recipient) {
      const { organization } = request;
      return deps.contacts.resolve(organization.company_id, request.recipient.phone, {
        quotaOf: organization,
      });
    }
    const { contact_id } = request.recipient;
    const [contact] = await deps.contacts.byIds(request.organization.company_id, [contact_id]);
    if (!contact) throw new AppError('not_found', `contact_id: no contact ${contact_id}`);
    return contact;
  }

  /**
   * The message's quota place: the producer's, or held under the message's own hold name until
   * the message is stored, so that a process dying before that leaves a place the recovery job
   * can name and give back.
   */
  async function reserveQuota(
    id: number,
    request: SendRequest,
    now: Date,
  ): Promise<{ month: string; hold?: string }> {
    if (request.reservedMonth) return { month: request.reservedMonth };
    const { company_id, plan, plan_started_at } = request.organization;
    const limit = limitFor(plan, 'messagesPerMonth', plan_started_at, now);
    const hold = messageHold(id);
    const month = request.producerHold
      ? await deps.quotas.hold(company_id, monthKey(now), limit, hold, now, request.producerHold)
      : await deps.quotas.holdWithOthers(company_id, monthKey(now), limit, hold, now);
    if (!month) {
      throw new AppError(
        'quota_exceeded',
        quotaExceededMessage(plan, 'messagesPerMonth', plan_started_at, now),
      );
    }
    return { month, hold };
  }

  /** Calls the provider for a stored pending message this attempt holds, and stores the outcome. */
  async function deliverStored(
    message: StoredMessage,
    request: Pick<SendRequest, 'mayFail'>,
    contactName: string | undefined,
    refusal?: ProviderFailure,
  ): Promise<SendAnswer> {
    const body = JSON.parse(message.request_json ?? '{}') as Record<string, unknown>;
    const channel = refusal ? undefined : await channelOf(message);
    const result = !channel
      ? { ok: false as const, failure: refusal! }
      : await deliverToProvider(
          deps.cloudApi.forChannel(channel),
          deps.pacing,
          channel.phone_number_id,
          body,
          deps.retry,
          Math.random,
          channel.send_rate_per_second,
        );
    const { failure } = result.ok ? { failure: undefined } : result;
    if (failure && !request.mayFail && failure.retryable) {
      await deps.messages.releaseLease(message.id, new Date());
      throw new SendDeferred(failure.message);
    }
    // The events this attempt's own write stored, relayed with other sends' (no read back).
    let written: BrokerEvent[] = [];
    const finalized = await deps.lock(message._id, async () => {
      // Each write applies only while the message is still pending (one conditional write, no
      // read first); when it is not, something else finished it and its state is the answer.
      const finishedElsewhere = async () => {
        const current = await deps.messages.findById(message.id);
        return current ? answerOf(current) : undefined;
      };
      const now = new Date();
      if (result.ok) {
        const events = [
          messageSent(deps.eventIds, message, result.wamid, now),
          messageStatusUpdated(deps.eventIds, message, result.wamid, 'sent', null, now),
        ];
        if (await deps.messages.accepted(message, result.wamid, now, events)) {
          written = events;
        } else {
          const elsewhere = await finishedElsewhere();
          if (elsewhere) return elsewhere;
        }
        return sentAnswer(message.id, result.wamid);
      }
      const error = failure!.message;
      const events = [
        messageFailed(deps.eventIds, message, error, now),
        // Never accepted, so there is no provider id: the event carries an empty message_wamid.
        messageStatusUpdated(deps.eventIds, message, '', 'failed', error, now),
      ];
      if (await deps.messages.markRefused(message.id, error, now, events)) {
        written = events;
      } else {
        const elsewhere = await finishedElsewhere();
        if (elsewhere) return elsewhere;
      }
      if (message.quota_month) {
        await deps.quotas.release(message.company_id, message.quota_month);
      }
      log.info({ message_id: message.id, error }, 'provider refused a message');
      return failureAnswer(message.id, failure!);
    });
    if (finalized.replayed) return finalized;
    deps.relay.relayWrittenSoon(deps.messages.outbox, [{ id: message._id, events: written }]);
    await deps.conversations.recordSent(message, contactName, new Date());
    return finalized;
  }

  /**
   * A template the organization cannot send is refused before any quota or
   * provider call. An API caller gets the error; a command is answered with a failed message
   * instead, because its producer (a campaign) counts on a `message_failed` for every command.
   */
  async function templateRefusal(request: SendRequest): Promise<ProviderFailure | undefined> {
    if (!('content' in request) || request.content.kind !== 'template') return undefined;
    try {
      await checkTemplateSendable(deps.templates, request.organization.company_id, request.content);
      return undefined;
    } catch (error) {
      if (request.idempotency?.scope !== 'command' || !(error instanceof AppError)) throw error;
      return {
        message: error.message,
        code: null,
        httpStatus: 422,
        retryable: false,
        kind: 'refused',
      };
    }
  }

  /** Everything before the message exists: nothing of it remains if any step refuses. */
  async function sendNew(
    id: number,
    request: SendRequest,
    idempotencyKeyId: string | undefined,
    now: Date,
  ): Promise<SendAnswer> {
    const { company_id } = request.organization;
    const channel = await deps.channels.sender(company_id, request.from_phone_number_id);
    let refusal = await templateRefusal(request);
    const { month, hold } = await reserveQuota(id, request, now);
    const giveBack = () =>
      hold
        ? deps.quotas.giveBackHold(company_id, month, hold)
        : deps.quotas.release(company_id, month);
    let content: OutboundContent;
    let contact: ContactRef;
    try {
      contact = await recipientOf(request);
      const kind = 'content' in request ? request.content : request.contentFor('0');
      // A direct send (not a producer's command: campaigns and automated answers decide that).
      if (request.idempotency?.scope !== 'command') {
        await refuseUnsubscribed(deps, company_id, contact, kind, now);
      }
      refusal ??= await serviceWindowRefusal(
        deps.conversations,
        request,
        kind,
        contact,
        company_id,
        now,
      );
      if ('upload' in request) {
        const uploaded = await deps.cloudApi.forChannel(channel).uploadMedia(request.upload);
        if (!uploaded.ok) {
          throw new AppError(
            uploaded.failure.kind === 'refused' ? 'provider_error' : 'dependency_unavailable',
            uploaded.failure.message,
            uploaded.failure.kind === 'refused' ? { httpStatus: 422 } : {},
          );
        }
        content = request.contentFor(uploaded.data.id);
      } else {
        content = request.content;
      }
      // The recovery job gives back holds older than two leases, whose message it cannot find:
      // a send this late stops here rather than store a message whose place may be gone.
      if (Date.now() - now.getTime() > deps.leaseMs) {
        throw new AppError(
          'dependency_unavailable',
          'The send took too long to prepare; nothing was sent',
        );
      }
    } catch (error) {
      await giveBack();
      throw error;
    }

    const body: Record<string, unknown> = {
      ...buildProviderMessage(contact.phone, content),
      // Echoed in the provider's status webhooks: if this process dies after the provider
      // accepted the message but before storing that, the `sent` status still finds it.
      biz_opaque_callback_data: callbackDataOf({
        id,
        contact_id: contact.id,
        campaign_id: request.campaign_id ?? null,
      }),
    };
    const message: StoredMessage = {
      _id: String(id),
      id,
      company_id: request.organization.company_id,
      contact_id: contact.id,
      phone: contact.phone,
      direction: 'outbound',
      type: String(body.type),
      message: previewOf(content),
      wamid: pendingWamid(id),
      status: 'pending',
      error: null,
      status_times: {},
      history: [],
      statuses_seen: [],
      request_json: JSON.stringify(body),
      raw_json: null,
      idempotency_key: request.idempotency?.key ?? null,
      ...(request.idempotency?.scope === 'command' ? { via_command: true } : {}),
      campaign_id: request.campaign_id ?? null,
      phone_number_id: channel.phone_number_id,
      sent_by_agent_id: request.sent_by_agent_id ?? null,
      quota_month: month,
      lease_until: new Date(now.getTime() + deps.leaseMs),
      created_at: now,
      updated_at: now,
      pending_events: {},
      pending_ids: [],
    };
    await deps.messages.insertPending(message);
    // The stored message holds the place now: the name can go, with other sends' names.
    if (hold) deps.holdSettler.settle(company_id, month, hold);
    const answer = await deliverStored(message, request, contact.name, refusal);
    if (idempotencyKeyId) await deps.idempotency.complete(idempotencyKeyId, answer);
    return answer;
  }

  /** A key seen before: replay its answer, wait for it, or take over a send that was abandoned. */
  async function continueKnown(
    record: IdempotencyRecord,
    request: SendRequest,
    now: Date,
  ): Promise<SendAnswer | 'forgotten'> {
    if (record.fingerprint !== request.idempotency!.fingerprint) {
      throw new AppError(
        'conflict',
        'This Idempotency-Key was already used with a different request',
      );
    }
    if (record.response) return { ...record.response, replayed: true };
    const message = await deps.messages.findById(record.message_id);
    if (!message) {
      // The first request died before storing its message (or refused without effect).
      if (now.getTime() - record.created_at.getTime() < deps.leaseMs) throw inProgress();
      await deps.idempotency.forget(record._id);
      return 'forgotten';
    }
    if (message.status !== 'pending') {
      const answer = answerOf(message);
      await deps.idempotency.complete(record._id, answer);
      return answer;
    }
    const claimed = await deps.messages.claim(message.id, now, deps.leaseMs);
    if (!claimed) throw inProgress();
    log.warn({ message_id: message.id }, 'taking over an interrupted send');
    const answer = await deliverStored(claimed, request, undefined);
    await deps.idempotency.complete(record._id, answer);
    return answer;
  }

  return {
    /**
     * Fails a pending send whose lease ran out (its process died before the provider answered):
     * `message_failed`, its quota place given back. False when another attempt holds it.
     */
    async failInterrupted(id: number, now = new Date()): Promise<boolean> {
      const claimed = await deps.messages.claim(id, now, deps.leaseMs);
      if (!claimed) return false;
      log.warn({ message_id: id }, 'an interrupted send is failed; it is not sent again');
      await deliverStored(claimed, { mayFail: true }, undefined, INTERRUPTED);
      return true;
    },

    async send(asked: SendRequest): Promise<SendAnswer> {
      checkLimits('content' in asked ? asked.content : asked.contentFor('0'));
      const request = await resolveReferences(deps.messages, asked);
      const now = new Date();
      for (let attempt = 0; attempt < 2; attempt++) {
        const id = await deps.nextMessageId();
        if (!request.idempotency) return sendNew(id, request, undefined, now);
        const { scope, key, fingerprint } = request.idempotency;
        const recordId = idempotencyId(request.organization.company_id, scope, key);
        const claim = await deps.idempotency.claim({
          _id: recordId,
          company_id: request.organization.company_id,
          fingerprint,
          message_id: id,
          created_at: now,
        });
        if (!claim.created) {
          const answer = await continueKnown(claim.existing, request, now);
          if (answer === 'forgotten') continue;
          return answer;
        }
        try {
          return await sendNew(id, request, recordId, now);
        } catch (error) {
          // Refused before the message existed: the key is free again, as if never used.
          if (!(await deps.messages.findById(id))) {
            await deps.idempotency.forget(recordId).catch(() => undefined);
          }
          throw error;
        }
      }
      throw inProgress();
    },
  };
}

export type Sender = ReturnType<typeof createSender>;
