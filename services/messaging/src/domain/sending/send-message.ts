import { idempotencyId } from '../../data-access/idempotency-store';
import type { ProviderFailure } from '../../outbound/provider-failure';
import { checkLimits } from './build-provider-message';
import { continueKnownSend } from './continue-known-send';
import { deliverStoredMessage } from './deliver-stored-message';
import { pendingMessage } from './pending-message';
import { prepareSend } from './prepare-send';
import { resolveReferences } from './resolve-references';
import type { SendAnswer } from './send-answer';
import { sendInProgress } from './send-errors';
import type { SendingDeps } from './sending-deps';
import { requestedContent, type SendRequest } from './send-types';

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

/**
 * Sends one message: idempotency key claimed, monthly quota reserved, recipient resolved (a new
 * contact within the contact quota), message stored as pending, provider called (paced and
 * retried), and the outcome stored with its events in one write. A refusal stores the message
 * as failed and gives the quota place back.
 */
export function createSender(sendingDeps: SendingDeps) {
  const deps: SendingDeps = {
    ...sendingDeps,
    logger: sendingDeps.logger.child({ component: 'sender' }),
  };

  /** A send under a new message id: prepared, stored as pending, then delivered. */
  async function sendNew(
    id: number,
    request: SendRequest,
    idempotencyKeyId: string | undefined,
    now: Date,
  ): Promise<SendAnswer> {
    const prepared = await prepareSend(deps, id, request, now);
    const message = pendingMessage(id, request, prepared, deps.leaseMs, now);
    await deps.messages.insertPending(message);
    // The stored message holds the place now: the name can go, in the quota's next write. Not
    // awaited: a failure only leaves the name for the recovery job, which finds the message.
    const { month, hold } = prepared.place;
    if (hold) {
      const company_id = request.organization.company_id;
      deps.quotas.settle({ owner: company_id, month }, hold).catch((error: unknown) => {
        deps.logger.warn({ err: error, company_id, hold }, 'quota hold left for the recovery job');
      });
    }
    const answer = await deliverStoredMessage(
      deps,
      message,
      request,
      prepared.contact.name,
      prepared.refusal,
    );
    if (idempotencyKeyId) await deps.idempotency.complete(idempotencyKeyId, answer);
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
      deps.logger.warn({ message_id: id }, 'an interrupted send is failed; it is not sent again');
      await deliverStoredMessage(deps, claimed, { mayFail: true }, undefined, INTERRUPTED);
      return true;
    },

    async send(asked: SendRequest): Promise<SendAnswer> {
      checkLimits(requestedContent(asked));
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
          const answer = await continueKnownSend(deps, claim.existing, request, now);
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
      throw sendInProgress();
    },
  };
}

export type Sender = ReturnType<typeof createSender>;
