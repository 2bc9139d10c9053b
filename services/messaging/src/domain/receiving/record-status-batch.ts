import type { BrokerEvent, ProviderEventMessage } from '@switchboard/contracts';
import type { HistoryEntry, StatusChange, StoredMessage } from '../../data-access/message-store';
import { hasRealWamid } from '../../data-access/message-store';
import { callbackSubjectOf, messageStatusUpdated } from '../message-events';
import { providerTime } from './receive-messages';
import {
  MOVES_FROM,
  describeStatusError,
  isDeliveryStatus,
  recordStatuses,
  statusEvents,
  type StatusDeps,
} from './record-statuses';

type Loose = Record<string, unknown>;

/** One provider status of a batch, with the message its callback data names. */
interface Item {
  event: number;
  id: number;
  wamid: string;
  status: keyof typeof MOVES_FROM;
  at: Date;
  error: string | null;
  /** What the callback data names beside the message (absent in that of older sends). */
  contact_id?: number;
  campaign_id?: number | null;
  /** The organization's number the status came to (the provider's `metadata`). */
  phone_number_id?: string;
}

/**
 * The statuses of one provider event, when every one of them names its message in
 * `biz_opaque_callback_data` (as every send of ours does); undefined when one does not.
 */
function itemsOf(event: ProviderEventMessage, index: number, now: Date): Item[] | undefined {
  const statuses = Array.isArray(event.value.statuses) ? (event.value.statuses as Loose[]) : [];
  const metadata = (event.value.metadata ?? {}) as Loose;
  const numberId =
    typeof metadata.phone_number_id === 'string' && metadata.phone_number_id !== ''
      ? metadata.phone_number_id
      : undefined;
  const items: Item[] = [];
  for (const status of statuses) {
    const wamid = typeof status.id === 'string' ? status.id : undefined;
    const name = typeof status.status === 'string' ? status.status : undefined;
    if (!wamid || !name || !isDeliveryStatus(name)) continue; // as recordStatuses skips them
    const subject = callbackSubjectOf(status.biz_opaque_callback_data);
    if (subject === undefined) return undefined;
    const error = name === 'failed' ? describeStatusError(status.errors) : null;
    items.push({
      event: index,
      ...subject,
      wamid,
      status: name,
      at: providerTime(status.timestamp, now),
      error,
      ...(numberId ? { phone_number_id: numberId } : {}),
    });
  }
  return items;
}

/**
 * What a delivered or read needs to be moved and announced without reading its message: the
 * contact and campaign from the callback data, the number from the provider's metadata. Failed
 * is left to the read (its `message_failed` names the phone).
 */
function blindMove(item: Item) {
  if (item.status !== 'delivered' && item.status !== 'read') return undefined;
  if (item.contact_id === undefined || item.phone_number_id === undefined) return undefined;
  return {
    contact_id: item.contact_id,
    campaign_id: item.campaign_id ?? null,
    phone_number_id: item.phone_number_id,
  };
}

/** A message the fast path may move: ours, outbound, accepted under this very wamid. */
const settledFor = (message: StoredMessage | undefined, item: Item, company_id: number) =>
  message !== undefined &&
  message.company_id === company_id &&
  message.direction === 'outbound' &&
  message.status !== 'pending' &&
  hasRealWamid(message) &&
  message.wamid === item.wamid;

/**
 * The state a message whose statuses here are all sent, delivered or read, each naming its
 * contact and number, most likely is in, for a change decided without reading it: accepted, at
 * `sent`, having seen the provider's `sent` unless it is among them (the provider reports sent
 * first, and a batch seldom holds the statuses of a message from before it). The change is
 * guarded by exactly that state and by whose message it is, so a wrong guess writes nothing and
 * is looked at again (see retryMissed).
 */
function assumedState(items: Item[], company_id: number) {
  const [first] = items;
  const complete = items.every(
    (item) =>
      item.status !== 'failed' &&
      item.contact_id !== undefined &&
      item.phone_number_id !== undefined,
  );
  if (!first || !complete) return undefined;
  const seen = items.some((item) => item.status === 'sent') ? [] : ['sent'];
  // What a change and its events read of a message: nothing else is filled in (no failed here,
  // whose message_failed names the phone).
  const message = {
    id: first.id,
    company_id,
    contact_id: first.contact_id!,
    campaign_id: first.campaign_id ?? null,
    phone_number_id: first.phone_number_id!,
    wamid: first.wamid,
    status: 'sent',
    statuses_seen: seen,
  } as StoredMessage;
  return {
    message,
    owner: {
      wamid: first.wamid,
      company_id,
      contact_id: message.contact_id,
      campaign_id: message.campaign_id,
      phone_number_id: first.phone_number_id!,
    },
  };
}

/**
 * The statuses of one message, in arrival order, as one change decided from the message as read:
 * each status recorded once, a move only forward (the rules of recordStatuses).
 */
function changeOf(deps: StatusDeps, message: StoredMessage, items: Item[], now: Date) {
  const seen = new Set(message.statuses_seen);
  let status = message.status;
  const history: HistoryEntry[] = [];
  const statuses: string[] = [];
  const change: StatusChange = {
    id: message.id,
    from: { status: message.status, seen: message.statuses_seen.length },
    to: null,
    history,
    statuses,
    events: [],
  };
  for (const item of items) {
    if (seen.has(item.status)) continue; // a repeat: recorded already
    seen.add(item.status);
    statuses.push(item.status);
    const moves = MOVES_FROM[item.status].includes(status);
    history.push({ status: item.status, at: item.at, applied: moves });
    if (!moves) continue;
    status = item.status;
    change.to = {
      status,
      times: { ...change.to?.times, [item.status]: item.at },
      ...(item.status === 'failed' ? { error: item.error } : {}),
    };
    change.events.push(
      ...statusEvents(deps.eventIds, message, item.wamid, item.status, item.error, now),
    );
  }
  return history.length > 0 ? change : undefined;
}

/**
 * Statuses of many provider events at once (what recordStatuses does for one, with the same
 * guarantees): each message's statuses become one write guarded by the state it was decided
 * from, all in one bulk write, and their events are relayed in one batch. That state is read
 * (side by side) only when it cannot be known otherwise: a status alone of its message needs
 * none (its guard says what it moves from), nor do several of a message that name its contact
 * and number (see assumedState). When a guard misses, the messages are read and what is left is
 * written once more (see retryMissed). What the fast path cannot take — a status without our
 * callback data, a message not found, still pending, of another organization or under another
 * wamid — goes through recordStatuses one event at a time (it reads again and records only what
 * is not recorded yet). Answers one outcome per event: undefined, or the error that sends it back
 * to the broker.
 */
export async function recordStatusBatch(
  deps: StatusDeps,
  events: ProviderEventMessage[],
  now = new Date(),
): Promise<(undefined | Error)[]> {
  const slow = new Set<number>();
  const items: Item[] = [];
  events.forEach((event, index) => {
    const found = itemsOf(event, index, now);
    if (found) items.push(...found);
    else slow.add(index);
  });
  // A status that is its message's only one here needs no read when it is a `sent` (see
  // the sent writes of status-writes), or a delivered or read whose callback data names the
  // contact and campaign (the moves there): their events can be written without the message.
  const perMessage = new Map<number, number>();
  for (const item of items) perMessage.set(item.id, (perMessage.get(item.id) ?? 0) + 1);
  const unread = items.filter(
    (item) =>
      perMessage.get(item.id) === 1 &&
      !slow.has(item.event) &&
      (item.status === 'sent' || blindMove(item) !== undefined),
  );
  const several = items.filter((item) => !unread.includes(item));
  // A message with several statuses here, all of one wamid and each naming its contact and
  // number, is not read either: its change is decided from the state it most likely is in.
  const assumed = new Map<number, NonNullable<ReturnType<typeof assumedState>>>();
  const ofMessage = new Map<number, Item[]>();
  for (const item of several) ofMessage.set(item.id, [...(ofMessage.get(item.id) ?? []), item]);
  for (const [id, own] of ofMessage) {
    if (own.some((item) => slow.has(item.event) || item.wamid !== own[0]!.wamid)) continue;
    const state = assumedState(own, events[own[0]!.event]!.company_id);
    if (state) assumed.set(id, state);
  }
  const read = several.filter((item) => !assumed.has(item.id));
  const messages = await deps.messages.findManyById(read.map((item) => item.id));
  for (const [id, state] of assumed) messages.set(id, state.message);

  // A message any of whose statuses takes the slow path takes it for all of them (so that they
  // stay in order), and so does every event holding one of them.
  const slowMessages = new Set<number>();
  for (const item of read) {
    if (!settledFor(messages.get(item.id), item, events[item.event]!.company_id)) {
      slowMessages.add(item.id);
    }
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const item of items) {
      if (slow.has(item.event) && !slowMessages.has(item.id)) {
        slowMessages.add(item.id);
        grew = true;
      }
      if (slowMessages.has(item.id) && !slow.has(item.event)) {
        slow.add(item.event);
        grew = true;
      }
    }
  }
  const fast = several.filter((item) => !slow.has(item.event));
  const sentOnly = unread.filter((item) => !slow.has(item.event) && item.status === 'sent');
  const blind = unread.filter((item) => !slow.has(item.event) && item.status !== 'sent');

  const byMessage = new Map<number, Item[]>();
  for (const item of fast) byMessage.set(item.id, [...(byMessage.get(item.id) ?? []), item]);
  const changes = [...byMessage].flatMap(([id, own]) => {
    const change = changeOf(deps, messages.get(id)!, own, now);
    const owner = assumed.get(id)?.owner;
    if (change && owner) {
      change.from = { ...change.from, statuses: messages.get(id)!.statuses_seen, owner };
    }
    return change ? [change] : [];
  });
  const blindMoves = blind.map((item) => {
    const move = blindMove(item)!;
    const message = {
      id: item.id,
      company_id: events[item.event]!.company_id,
      contact_id: move.contact_id,
      campaign_id: move.campaign_id,
      phone_number_id: move.phone_number_id,
    };
    return {
      ...message,
      wamid: item.wamid,
      status: item.status,
      from: MOVES_FROM[item.status],
      at: item.at,
      events: [messageStatusUpdated(deps.eventIds, message, item.wamid, item.status, null, now)],
    };
  });
  const sents = sentOnly.map((item) => ({ ...item, company_id: events[item.event]!.company_id }));
  // Every write of the batch in one command: the changes decided from a read, the moves and the
  // sent statuses written without one. Each carries the clear of its message's events published
  // since its last write (the acceptance's, an earlier status's) that still waits to be written,
  // so that the message is written once instead of twice; if any write misses, the clears go
  // alone (which write missed is not told).
  const written = [...changes, ...blindMoves, ...sents];
  const taken = deps.relay.takeClears(
    deps.messages.outbox,
    written.map((write) => String(write.id)),
  );
  let landed = 0;
  try {
    landed = await deps.messages.writeStatuses(
      { changes, sents, moves: blindMoves },
      now,
      taken.clears,
    );
  } finally {
    taken.settle(landed === written.length);
  }
  if (landed === written.length) {
    deps.relay.relayWrittenSoon(deps.messages.outbox, [
      ...changes
        .filter((change) => change.events.length > 0)
        .map((change) => ({ id: String(change.id), events: change.events })),
      ...blindMoves.map((move) => ({ id: String(move.id), events: move.events })),
    ]);
  } else {
    const written = [...fast, ...blind, ...sentOnly];
    const ours = new Map<number, BrokerEvent[]>([
      ...changes.map((change) => [change.id, change.events] as const),
      ...blindMoves.map((move) => [move.id, move.events] as const),
    ]);
    for (const event of await retryMissed(deps, events, written, ours, now)) slow.add(event);
  }

  deps.logger.debug(
    {
      events: events.length,
      changes: changes.length,
      sent: sents.length,
      moved: blindMoves.length,
      slow: slow.size,
    },
    'statuses recorded in a batch',
  );
  const outcomes: (undefined | Error)[] = events.map(() => undefined);
  for (const index of [...slow].sort((a, b) => a - b)) {
    try {
      await recordStatuses(deps, events[index]!, now);
    } catch (error) {
      outcomes[index] = error instanceof Error ? error : new Error(String(error));
    }
  }
  return outcomes;
}

/**
 * After a batch's write in which some guard found its message otherwise than it said (a repeat,
 * out of order, changed since it was read, a sent ahead of its acceptance; which one the database
 * does not tell): each message is read again. A status it has seen is recorded (by this batch or
 * before); when its outbox holds events, they are relayed from there (by reading it: event ids
 * are stable, so events this batch wrote and the same ones written earlier and still going out
 * cannot be told apart, and only the relay's read of the record publishes each once). The
 * others of a message that is now settled (a sent that had arrived before its acceptance was
 * stored, the usual case) are written once more as one change decided from the message as read,
 * all in one command; the events of what is left, or of a change that missed again, go the
 * one-by-one way (answered).
 */
async function retryMissed(
  deps: StatusDeps,
  events: ProviderEventMessage[],
  written: Item[],
  ours: Map<number, BrokerEvent[]>,
  now: Date,
): Promise<number[]> {
  const after = await deps.messages.findManyById(written.map((item) => item.id));
  const slow: number[] = [];
  const again = new Map<number, Item[]>();
  for (const item of written) {
    const message = after.get(item.id);
    if (message?.statuses_seen.includes(item.status)) {
      const pending = new Set(message.pending_ids);
      if ((ours.get(item.id) ?? []).some((event) => pending.has(event.id))) {
        deps.relay.relaySoon(deps.messages.outbox, message._id);
      }
      ours.delete(item.id);
    } else if (settledFor(message, item, events[item.event]!.company_id)) {
      again.set(item.id, [...(again.get(item.id) ?? []), item]);
    } else {
      slow.push(item.event);
    }
  }
  const changes = [...again].flatMap(([id, own]) => {
    const change = changeOf(deps, after.get(id)!, own, now);
    return change ? [change] : [];
  });
  const matched = await deps.messages.writeStatuses({ changes, sents: [], moves: [] }, now);
  if (matched === changes.length) {
    deps.relay.relayWrittenSoon(
      deps.messages.outbox,
      changes
        .filter((change) => change.events.length > 0)
        .map((change) => ({ id: String(change.id), events: change.events })),
    );
  } else {
    for (const own of again.values()) for (const item of own) slow.push(item.event);
  }
  return slow;
}
