import type { ProviderEventMessage } from '@switchboard/contracts';
import type { EventRelay, Logger } from '@switchboard/service-kit';
import type { StoredMessageStatus } from '@switchboard/contracts';
import {
  hasRealWamid,
  type DeliveryStatus,
  type MessageStore,
  type StoredMessage,
} from '../../data-access/message-store';
import type { KeyedLock } from '../keyed-lock';
import {
  messageFailed,
  messageIdOfCallbackData,
  messageSent,
  messageStatusUpdated,
  type EventIds,
} from '../message-events';
import { providerTime } from './receive-messages';

export interface StatusDeps {
  messages: MessageStore;
  relay: EventRelay;
  eventIds: EventIds;
  lock: KeyedLock;
  logger: Logger;
}

/** The statuses a message may move from into each status: forward only, failed is terminal. */
export const MOVES_FROM: Record<DeliveryStatus, StoredMessageStatus[]> = {
  sent: [],
  delivered: ['sent'],
  read: ['sent', 'delivered'],
  failed: ['sent', 'delivered'],
};
export const isDeliveryStatus = (status: string): status is DeliveryStatus => status in MOVES_FROM;

type Loose = Record<string, unknown>;

/** `(#131047) Re-engagement message: <details>`, like the errors of a refused send. */
export function describeStatusError(errors: unknown): string {
  const [first] = Array.isArray(errors) ? (errors as Loose[]) : [];
  if (!first) return 'The provider reported the message as failed';
  const title = typeof first.title === 'string' ? first.title : first.message;
  const details = (first.error_data as Loose | undefined)?.details;
  const head = [typeof first.code === 'number' ? `(#${first.code})` : '', title]
    .filter(Boolean)
    .join(' ');
  return [head, typeof details === 'string' ? details : ''].filter(Boolean).join(': ');
}

/** Raised so the broker retries: the status refers to a send whose acceptance is not stored yet. */
export class UnknownMessageError extends Error {
  override readonly name = 'UnknownMessageError';
}

/**
 * Statuses of one provider change (ARCHITECTURE §8): each moves its message forward only, once
 * per message and status; a real move writes `message_status_updated` with it. A status of a
 * message not known (yet) is retried through the broker, then parked.
 */
export async function recordStatuses(
  deps: StatusDeps,
  event: ProviderEventMessage,
  now = new Date(),
): Promise<void> {
  const unknown: string[] = [];
  const statuses = Array.isArray(event.value.statuses) ? (event.value.statuses as Loose[]) : [];
  for (const item of statuses) {
    const wamid = typeof item.id === 'string' ? item.id : undefined;
    const status = typeof item.status === 'string' ? item.status : undefined;
    if (!wamid || !status) continue;
    if (!isDeliveryStatus(status)) continue; // e.g. `played` of a voice message
    const message =
      (await deps.messages.findByWamidKey(wamid)) ??
      (await adoptAcceptance(deps, event.company_id, item, wamid, now));
    if (!message) {
      unknown.push(wamid);
      continue;
    }
    if (message.company_id !== event.company_id || message.direction !== 'outbound') {
      deps.logger.warn({ wamid }, 'status for a message of another organization; ignored');
      continue;
    }
    const error = status === 'failed' ? describeStatusError(item.errors) : null;
    const at = providerTime(item.timestamp, now);
    await deps.lock(message._id, async () => {
      // Read again under the lock: the status this change finds is the one it moves from.
      let current = await deps.messages.findById(message.id);
      if (!current || current.statuses_seen.includes(status)) return false; // a repeat
      if (current.status === 'pending') {
        // Its wamid is stored but the message still pending: the process storing the acceptance
        // died between the two writes (a live sender holds this lock while it writes them).
        await acceptPending(deps, current, wamid, now);
        current = await deps.messages.findById(message.id);
        if (!current) return false;
      }
      const moves = MOVES_FROM[status].includes(current.status);
      const events = statusEvents(deps.eventIds, current, wamid, status, error, now);
      await deps.messages.recordStatus(current.id, status, at, { moves, error }, now, events);
      return moves;
    });
    // Also after an acceptance stored here, whose events wait in the outbox.
    deps.relay.relaySoon(deps.messages.outbox, message._id);
  }
  if (unknown.length > 0) {
    throw new UnknownMessageError(`statuses for unknown messages: ${unknown.join(', ')}`);
  }
}

/**
 * The events of a status that moves its message: `message_status_updated`, and for a message the
 * network accepted and later failed also `message_failed` with the network's error (as a refused
 * send has), which a customer subscribed only to failures waits for.
 */
export function statusEvents(
  ids: EventIds,
  message: StoredMessage,
  wamid: string,
  status: DeliveryStatus,
  error: string | null,
  now: Date,
) {
  const updated = messageStatusUpdated(ids, message, wamid, status, error, now);
  if (status !== 'failed') return [updated];
  return [updated, messageFailed(ids, message, error ?? describeStatusError(undefined), now)];
}

/**
 * A status for a wamid without a key, naming one of our messages in its
 * `biz_opaque_callback_data`: accepted under that wamid with its key still to be written (keys
 * follow acceptances), or still pending because the process that sent it died after the provider
 * accepted it and before storing that. The acceptance is stored now, as the send would have, so
 * a retry of the send finds the message sent and does not send it again.
 */
async function adoptAcceptance(
  deps: StatusDeps,
  company_id: number,
  item: Loose,
  wamid: string,
  now: Date,
) {
  const id = messageIdOfCallbackData(item.biz_opaque_callback_data);
  if (id === undefined) return null;
  const adopted = await deps.lock(String(id), async (): Promise<StoredMessage | null> => {
    const current = await deps.messages.findById(id);
    if (!current || current.company_id !== company_id || current.direction !== 'outbound') {
      return null;
    }
    if (current.status === 'failed' && !hasRealWamid(current)) {
      // Failed without a provider id (interrupted, or every attempt timed out) yet accepted: the
      // status is the truth and joins the history; the failure already announced stands.
      await deps.messages.rememberWamid({ wamid, id: current.id, company_id });
      deps.logger.warn(
        { message_id: current.id, wamid },
        'the provider accepted a send recorded as failed; its statuses join its history',
      );
      return current;
    }
    // Accepted under this wamid, its key not written yet (keys follow acceptances): this is it.
    if (current.status !== 'pending') return current.wamid === wamid ? current : null;
    await acceptPending(deps, current, wamid, now);
    return current;
  });
  if (!adopted) return null;
  deps.relay.relaySoon(deps.messages.outbox, String(id));
  return adopted;
}

/** Stores the acceptance an interrupted send did not, with the events the send would have written. */
async function acceptPending(
  deps: StatusDeps,
  message: StoredMessage,
  wamid: string,
  now: Date,
): Promise<void> {
  const events = [
    messageSent(deps.eventIds, message, wamid, now),
    messageStatusUpdated(deps.eventIds, message, wamid, 'sent', null, now),
  ];
  await deps.messages.markAccepted(message, wamid, now, events);
  deps.logger.warn(
    { message_id: message.id, wamid },
    'acceptance of an interrupted send taken from its status',
  );
}
