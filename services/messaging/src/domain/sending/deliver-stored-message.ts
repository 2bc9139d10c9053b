import type { StoredMessage } from '../../data-access/message-store';
import type { ProviderFailure } from '../../outbound/provider-failure';
import { deliverToProvider } from './deliver-to-provider';
import { recordOutcome, type ProviderOutcome } from './record-outcome';
import type { SendAnswer } from './send-answer';
import { SendDeferred } from './send-errors';
import type { SendingDeps } from './sending-deps';
import type { SendRequest } from './send-types';

/**
 * The number a stored message goes out from: the one it names (messages stored before
 * organizations had several numbers name none: the first number's).
 */
async function channelOf(
  channels: SendingDeps['channels'],
  message: Pick<StoredMessage, 'company_id' | 'phone_number_id'>,
) {
  const named = message.phone_number_id
    ? await channels.findNumber(message.company_id, message.phone_number_id)
    : null;
  return named ?? channels.sender(message.company_id, undefined);
}

/**
 * Calls the provider for a stored pending message this attempt holds (paced and retried), and
 * stores the outcome; a `refusal` is recorded as the outcome without calling the provider. A
 * command with attempts left gives a retryable failure back to the broker (SendDeferred)
 * instead of recording it.
 */
export async function deliverStoredMessage(
  deps: SendingDeps,
  message: StoredMessage,
  request: Pick<SendRequest, 'mayFail'>,
  contactName: string | undefined,
  refusal?: ProviderFailure,
): Promise<SendAnswer> {
  const body = JSON.parse(message.request_json ?? '{}') as Record<string, unknown>;
  const channel = refusal ? undefined : await channelOf(deps.channels, message);
  const outcome: ProviderOutcome = !channel
    ? { ok: false, failure: refusal! }
    : await deliverToProvider(
        deps.cloudApi.forChannel(channel),
        deps.pacing,
        channel.phone_number_id,
        body,
        deps.retry,
        Math.random,
        channel.send_rate_per_second,
      );
  if (!outcome.ok && !request.mayFail && outcome.failure.retryable) {
    await deps.messages.releaseLease(message.id, new Date());
    throw new SendDeferred(outcome.failure.message);
  }
  // The outcome and the conversation's last message are written side by side, one round trip
  // fewer before the answer: neither write reads the other, and the answer still waits for
  // both. The conversation is written whatever the outcome (a failed send is its last message
  // too), and in the rare case that another attempt finished the message first (its lease ran
  // out) that attempt wrote it as well: the last message id only rises, so it stays this one.
  const [{ answer, written }] = await Promise.all([
    recordOutcome(deps, message, outcome),
    deps.conversations.recordSent(message, contactName, new Date()),
  ]);
  if (answer.replayed) return answer;
  // The events this attempt's own write stored, relayed with other sends' (no read back).
  deps.relay.relayWrittenSoon(deps.messages.outbox, [{ id: message._id, events: written }]);
  return answer;
}
