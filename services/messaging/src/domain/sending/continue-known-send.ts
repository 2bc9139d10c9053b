import { AppError } from '@switchboard/service-kit';
import type { IdempotencyRecord } from '../../data-access/idempotency-store';
import { deliverStoredMessage } from './deliver-stored-message';
import { answerOf, type SendAnswer } from './send-answer';
import { sendInProgress } from './send-errors';
import type { SendingDeps } from './sending-deps';
import type { SendRequest } from './send-types';

/**
 * A key seen before: replay its answer, wait for it, or take over a send that was abandoned.
 * 'forgotten' when the first request died before storing its message: the key is free again.
 */
export async function continueKnownSend(
  deps: SendingDeps,
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
    if (now.getTime() - record.created_at.getTime() < deps.leaseMs) throw sendInProgress();
    await deps.idempotency.forget(record._id);
    return 'forgotten';
  }
  if (message.status !== 'pending') {
    const answer = answerOf(message);
    await deps.idempotency.complete(record._id, answer);
    return answer;
  }
  const claimed = await deps.messages.claim(message.id, now, deps.leaseMs);
  if (!claimed) throw sendInProgress();
  deps.logger.warn({ message_id: message.id }, 'taking over an interrupted send');
  const answer = await deliverStoredMessage(deps, claimed, request, undefined);
  await deps.idempotency.complete(record._id, answer);
  return answer;
}
