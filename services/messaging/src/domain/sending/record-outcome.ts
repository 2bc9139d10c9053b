import type { BrokerEvent } from '@switchboard/contracts';
import type { StoredMessage } from '../../data-access/message-store';
import type { ProviderFailure } from '../../outbound/provider-failure';
import { messageFailed, messageSent, messageStatusUpdated } from '../message-events';
import { answerOf, failureAnswer, sentAnswer, type SendAnswer } from './send-answer';
import type { SendingDeps } from './sending-deps';

/** The provider's answer to a send: accepted under its id, or failed. */
export type ProviderOutcome = { ok: true; wamid: string } | { ok: false; failure: ProviderFailure };

/**
 * Stores how a pending message ended, with its events, in one conditional write: accepted
 * (`message_sent`, status `sent`), or failed (`message_failed`, its quota place given back).
 * Each write applies only while the message is still pending (no read first); when it is not,
 * something else finished it and its state is the answer. `written` are the events this write
 * stored, for the relay.
 */
export async function recordOutcome(
  deps: Pick<SendingDeps, 'messages' | 'quotas' | 'eventIds' | 'lock' | 'logger'>,
  message: StoredMessage,
  outcome: ProviderOutcome,
): Promise<{ answer: SendAnswer; written: BrokerEvent[] }> {
  let written: BrokerEvent[] = [];
  const answer = await deps.lock(message._id, async () => {
    const finishedElsewhere = async () => {
      const current = await deps.messages.findById(message.id);
      return current ? answerOf(current) : undefined;
    };
    const now = new Date();
    if (outcome.ok) {
      const events = [
        messageSent(deps.eventIds, message, outcome.wamid, now),
        messageStatusUpdated(deps.eventIds, message, outcome.wamid, 'sent', null, now),
      ];
      if (await deps.messages.accepted(message, outcome.wamid, now, events)) {
        written = events;
      } else {
        const elsewhere = await finishedElsewhere();
        if (elsewhere) return elsewhere;
      }
      return sentAnswer(message.id, outcome.wamid);
    }
    const error = outcome.failure.message;
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
      await deps.quotas.giveBack({ owner: message.company_id, month: message.quota_month });
    }
    deps.logger.info({ message_id: message.id, error }, 'provider refused a message');
    return failureAnswer(message.id, outcome.failure);
  });
  return { answer, written };
}
