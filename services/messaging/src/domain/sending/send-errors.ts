import { AppError } from '@switchboard/service-kit';

/** A send that could not finish now and should be tried again later (a command's broker retry). */
export class SendDeferred extends Error {
  override readonly name = 'SendDeferred';
}

/** The reason of the conflict answered while another attempt holds the send's lease. */
export const SEND_IN_PROGRESS = 'send_in_progress';

/** Another attempt holds this send: the caller may ask again in a second. */
export const sendInProgress = () =>
  new AppError('conflict', 'A request with this Idempotency-Key is still being processed', {
    details: { retry_after_seconds: 1 },
    reason: SEND_IN_PROGRESS,
  });
