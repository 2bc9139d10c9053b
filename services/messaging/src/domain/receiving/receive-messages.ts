import {
  INBOUND_MEDIA_TYPES,
  normalizePhone,
  type InboundMediaType,
  type MediaDescriptor,
  type ProviderEventMessage,
} from '@switchboard/contracts';
import type { EventRelay, Logger } from '@switchboard/service-kit';
import type { ConversationStore } from '../../data-access/conversation-store';
import type { InboundMediaStore, NewInboundMedia } from '../../data-access/inbound-media-store';
import type { MessageStore, StoredMessage } from '../../data-access/message-store';
import type { ContactsClient } from '../../outbound/contacts-client';
import type { ChannelDirectory } from '../channel-directory';
import { messageReceived, type EventIds } from '../message-events';
import { describeInbound, replyIdOf } from './describe-inbound';

export interface ReceivingDeps {
  nextMessageId(): Promise<number>;
  messages: MessageStore;
  conversations: ConversationStore;
  contacts: ContactsClient;
  relay: EventRelay;
  eventIds: EventIds;
  logger: Logger;
  /** Files contacts send are queued here and fetched apart from receipt (`kick` starts it). */
  inboundMedia?: { store: InboundMediaStore; kick(): void };
  /** After an agent's message to a contact, how long automated answers to them wait (0: never). */
  agentReplyPauseMs: number;
  /** The organization's numbers: a message names the number it reached when it is one of them. */
  numbers?: Pick<ChannelDirectory, 'findNumber'>;
}

/**
 * The organization's number a change reached (the provider names it in `metadata`), when it is
 * one of the organization's own numbers; one app's webhook may carry several numbers' changes.
 */
async function receivingNumber(
  deps: Pick<ReceivingDeps, 'numbers'>,
  company_id: number,
  metadata: Loose,
): Promise<string | undefined> {
  const id = metadata.phone_number_id;
  if (typeof id !== 'string' || id === '' || !deps.numbers) return undefined;
  return (await deps.numbers.findNumber(company_id, id)) ? id : undefined;
}

/** An agent answered the contact within the pause: automation should leave them to the agent. */
function agentIsReplying(agentRepliedAt: Date | null | undefined, pauseMs: number, now: Date) {
  return !!agentRepliedAt && now.getTime() - new Date(agentRepliedAt).getTime() < pauseMs;
}

type Loose = Record<string, unknown>;
const objects = (value: unknown): Loose[] =>
  Array.isArray(value)
    ? value.filter((item): item is Loose => typeof item === 'object' && item !== null)
    : [];

/** The profile names the provider reports, by WhatsApp id. */
function profileNames(value: Loose): Map<string, string> {
  const names = new Map<string, string>();
  for (const contact of objects(value.contacts)) {
    const name = (contact.profile as Loose | undefined)?.name;
    if (typeof contact.wa_id === 'string' && typeof name === 'string' && name.trim() !== '') {
      names.set(contact.wa_id, name.trim().slice(0, 200));
    }
  }
  return names;
}

const isMediaType = (type: string): type is InboundMediaType =>
  (INBOUND_MEDIA_TYPES as readonly string[]).includes(type);

/** The file an inbound message carries, as the provider describes it (id, mime type, sha256). */
function mediaOf(
  raw: Loose,
  type: string,
): Omit<NewInboundMedia, 'id' | 'company_id' | 'contact_id' | 'contact_name' | 'echo'> | null {
  if (!isMediaType(type)) return null;
  const body = (raw[type] ?? {}) as Loose;
  if (typeof body.id !== 'string' || body.id === '') return null;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return {
    type,
    provider_media_id: body.id.slice(0, 200),
    mime_type: text(body.mime_type)?.slice(0, 200) ?? 'application/octet-stream',
    filename: type === 'document' ? (text(body.filename)?.slice(0, 240) ?? null) : null,
    sha256: text(body.sha256)?.slice(0, 128) ?? null,
  };
}

function providerTime(timestamp: unknown, fallback: Date): Date {
  const seconds = Number(timestamp);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : fallback;
}

/**
 * Inbound messages of one provider change (ARCHITECTURE §8): each is stored once (its wamid is
 * unique), its sender resolved or created with the profile name, its conversation updated, and
 * `message_received` written with it and published. A redelivery finds the message stored and
 * only makes sure its conversation and events are done.
 */
export async function receiveMessages(
  deps: ReceivingDeps,
  event: ProviderEventMessage,
  now = new Date(),
): Promise<void> {
  const names = profileNames(event.value);
  const [firstContact] = objects(event.value.contacts);
  const metadata = (event.value.metadata ?? {}) as Loose;
  const ownNumber =
    typeof metadata.display_phone_number === 'string'
      ? normalizePhone(metadata.display_phone_number)
      : null;
  const numberId = await receivingNumber(deps, event.company_id, metadata);
  for (const message of objects(event.value.messages)) {
    const wamid = typeof message.id === 'string' ? message.id : undefined;
    const from =
      typeof message.from === 'string' && message.from !== ''
        ? message.from
        : typeof firstContact?.wa_id === 'string'
          ? firstContact.wa_id
          : '';
    const phone = normalizePhone(from);
    if (!wamid || !phone) {
      deps.logger.warn(
        { eventId: event.id, wamid },
        'inbound message without id or phone; skipped',
      );
      continue;
    }
    const echo = phone === ownNumber;
    await receiveOne(deps, event.company_id, wamid, phone, names.get(from), message, now, {
      echo,
      numberId,
    });
  }
}

async function receiveOne(
  deps: ReceivingDeps,
  company_id: number,
  wamid: string,
  phone: string,
  profileName: string | undefined,
  raw: Loose,
  now: Date,
  { echo, numberId }: { echo: boolean; numberId: string | undefined },
): Promise<void> {
  const known = await deps.messages.findByWamidKey(wamid);
  if (known) return finishRedelivery(deps, company_id, known, now);
  const contact = await deps.contacts.resolve(company_id, phone, {
    ...(profileName ? { name: profileName } : {}),
  });
  const conversation =
    deps.agentReplyPauseMs > 0 ? await deps.conversations.find(company_id, contact.id) : null;
  const { type, text } = describeInbound(raw);
  const receivedAt = providerTime(raw.timestamp, now);
  const id = await deps.nextMessageId();
  const file = deps.inboundMedia ? mediaOf(raw, type) : null;
  const pendingMedia: MediaDescriptor | undefined = file
    ? { ...file, size: null, url: null, status: 'pending' }
    : undefined;
  const message: StoredMessage = {
    _id: String(id),
    id,
    company_id,
    contact_id: contact.id,
    phone,
    direction: 'inbound',
    type,
    message: text,
    wamid,
    status: 'received',
    error: null,
    status_times: {},
    history: [{ status: 'received', at: receivedAt, applied: true }],
    statuses_seen: [],
    request_json: null,
    raw_json: JSON.stringify(raw),
    idempotency_key: null,
    campaign_id: null,
    quota_month: null,
    lease_until: null,
    created_at: now,
    updated_at: now,
    pending_events: {},
    pending_ids: [],
    ...(pendingMedia ? { media: pendingMedia } : {}),
    ...(numberId ? { phone_number_id: numberId } : {}),
  };
  const replyId = replyIdOf(raw);
  const event = messageReceived(deps.eventIds, message, contact.name, now, {
    ...(replyId ? { reply_id: replyId } : {}),
    ...(echo ? { echo: true as const } : {}),
    ...(agentIsReplying(conversation?.agent_replied_at, deps.agentReplyPauseMs, now)
      ? { automation_paused: true as const }
      : {}),
  });
  if (file && deps.inboundMedia) {
    // Queued before the message exists (keyed by its id), so a stored message always has its
    // fetch; `message_received` waits for the file, so that it can say where the file is kept.
    await deps.inboundMedia.store.add(
      {
        ...file,
        id,
        company_id,
        contact_id: contact.id,
        contact_name: contact.name,
        echo,
        ...(numberId ? { phone_number_id: numberId } : {}),
      },
      now,
    );
  }
  const stored = await deps.messages.insert(message, file ? [] : [event]);
  if (stored === 'duplicate') {
    // Stored before (its key not written yet, or a concurrent delivery): the unique wamid says so.
    const first = await deps.messages.findByWamid(wamid);
    if (first) await finishRedelivery(deps, company_id, first, now);
    return;
  }
  await deps.conversations.record(message, contact.name, now, receivedAt);
  if (file) deps.inboundMedia?.kick();
  else deps.relay.relaySoon(deps.messages.outbox, message._id);
}

/** A message stored before: only make sure its conversation and events are done. */
async function finishRedelivery(
  deps: ReceivingDeps,
  company_id: number,
  known: StoredMessage,
  now: Date,
): Promise<void> {
  if (known.company_id !== company_id) {
    deps.logger.warn({ wamid: known.wamid }, 'inbound wamid belongs to another organization');
    return;
  }
  await deps.conversations.record(known, undefined, now, known.history[0]?.at ?? known.created_at);
  deps.relay.relaySoon(deps.messages.outbox, known._id);
}

export { providerTime };
