import { AppError } from '@switchboard/service-kit';
import type { Channel } from '../../data-access/channel-store';
import type { ContactRef } from '../../outbound/contacts-client';
import type { ProviderFailure } from '../../outbound/provider-failure';
import { findRecipient } from './find-recipient';
import { refuseUnsubscribed } from './refuse-unsubscribed';
import { templateRefusal } from './refuse-template';
import { giveBackQuota, reserveQuota, type QuotaPlace } from './reserve-quota';
import type { SendingDeps } from './sending-deps';
import { requestedContent, type OutboundContent, type SendRequest } from './send-types';
import { serviceWindowRefusal } from './service-window';

/** A send ready to be stored: where it goes from and to, what it says, and its quota place. */
export interface PreparedSend {
  channel: Channel;
  contact: ContactRef;
  content: OutboundContent;
  place: QuotaPlace;
  /** Set when the send is to be recorded as failed without calling the provider. */
  refusal: ProviderFailure | undefined;
}

/**
 * Everything before the message exists: the number it goes from, its quota place, its contact,
 * the checks that may refuse it (template, opt-out, service window) and the upload of its file.
 * Nothing of it remains if any step refuses: the quota place is given back.
 */
export async function prepareSend(
  deps: Pick<
    SendingDeps,
    | 'channels'
    | 'templates'
    | 'quotas'
    | 'contacts'
    | 'messages'
    | 'conversations'
    | 'cloudApi'
    | 'leaseMs'
  >,
  id: number,
  request: SendRequest,
  now: Date,
): Promise<PreparedSend> {
  const { company_id } = request.organization;
  const channel = await deps.channels.sender(company_id, request.from_phone_number_id);
  let refusal = await templateRefusal(deps.templates, request);
  const place = await reserveQuota(deps.quotas, id, request, now);
  try {
    const contact = await findRecipient(deps.contacts, request);
    const kind = requestedContent(request);
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
    let content: OutboundContent;
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
    return { channel, contact, content, place, refusal };
  } catch (error) {
    await giveBackQuota(deps.quotas, company_id, place);
    throw error;
  }
}
